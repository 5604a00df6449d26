// A session's mode switch (Runtime.setMode): a mode the team policy forbids is refused, and the
// mode stays. Plan mode promises that commands cannot write the project, so switching to it stops
// the background processes that could; the notice goes to the user, and is kept for the model and
// the audit log. Apart from runtime.ts, which holds the mode.
import type { Mode } from "../core-types/mode.ts";
import { planStoppedNote } from "./notes.ts";
import type { RuntimeOptions } from "./runtimeOptions.ts";

/** What a mode switch did: refused (the reason; the mode stays), or done, with what the user must hear. */
export interface ModeSwitch {
  refusal?: string;
  /** Lines for the user (the model hears them at the next turn). */
  notices: string[];
}

export interface ModeSwitchContext {
  options: Pick<RuntimeOptions, "modeRefusal" | "jobs" | "audit">;
  /** Notes for the model's next user message. */
  notes: string[];
}

/** Switches to `mode` with `apply` unless it is refused; stops the writers on the way into plan mode. */
export async function switchMode(ctx: ModeSwitchContext, mode: Mode, apply: (mode: Mode) => void): Promise<ModeSwitch> {
  const refusal = ctx.options.modeRefusal?.(mode);
  if (refusal !== undefined) return { refusal, notices: [] };
  apply(mode);
  return { notices: mode === "plan" ? await stopWriters(ctx) : [] };
}

/**
 * Stops the background processes that can write the project; the notice for the user, also kept
 * for the model and the audit log.
 */
export async function stopWriters(ctx: ModeSwitchContext): Promise<string[]> {
  const stopped = (await ctx.options.jobs?.stopWriters()) ?? [];
  if (stopped.length === 0) return [];
  const text = planStoppedNote(stopped);
  ctx.notes.push(text);
  ctx.options.audit?.record({ type: "notice", text });
  return [text];
}
