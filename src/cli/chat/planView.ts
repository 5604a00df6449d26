// The model's plan (the todo tool's list) as a checklist: a heading with how much is done, then
// each step, done ones ticked and dimmed, the current one marked and bold. While the turn runs it
// sits in the live region above the spinner, cut to a few rows around the current step so the
// live region never outgrows the window; at the turn's end it is printed whole, for good.
import type { PlanItem } from "../../core-types/events.ts";
import { oneLine } from "../../text/visible.ts";
import type { Style } from "./style.ts";

const MARK: Readonly<Record<PlanItem["status"], string>> = { completed: "☑", in_progress: "▶", pending: "☐" };

/** The plan's rows; `maxSteps` keeps that many steps around the current one, naming how many are left out. */
export function planRows(items: readonly PlanItem[], style: Style, maxSteps = Number.POSITIVE_INFINITY): string[] {
  if (items.length === 0) return [];
  const done = items.filter((item) => item.status === "completed").length;
  const heading = style.bold(`Plan (${done} of ${items.length} done)`);
  const step = (item: PlanItem) => {
    const text = `${MARK[item.status]} ${oneLine(item.content, 300)}`;
    if (item.status === "completed") return `  ${style.dim(style.strike(text))}`;
    if (item.status === "in_progress") return `  ${style.bold(style.cyan(text))}`;
    return `  ${text}`;
  };
  if (items.length <= maxSteps) return [heading, ...items.map(step)];
  // Around the current step (else the first not done): one step before it, the rest after.
  const current = items.findIndex((item) => item.status === "in_progress");
  const open = items.findIndex((item) => item.status !== "completed");
  const focus = current >= 0 ? current : open >= 0 ? open : items.length - 1;
  const shown = Math.max(1, maxSteps);
  const first = Math.max(0, Math.min(focus - 1, items.length - shown));
  const rows = [heading];
  if (first > 0) rows.push(style.dim(`  … ${first} earlier`));
  rows.push(...items.slice(first, first + shown).map(step));
  const after = items.length - first - shown;
  if (after > 0) rows.push(style.dim(`  … ${after} more`));
  return rows;
}
