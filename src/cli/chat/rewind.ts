// /rewind, and Esc Esc on an empty prompt: the session's prompts as a menu (each with the files
// the turns after it changed), then what to put back — the files and the conversation, the
// conversation only, or the files only — and the rewind (runtime/rewind.ts). After the
// conversation goes back, the prompt it dropped is put in the prompt to edit and send again, as
// Claude Code does. The menus are the model's-question menus (asker.ts): digits pick, n or Esc
// leaves; so the newest MAX_SHOWN prompts are offered (an editor reaches any with _session/rewind).
import type { RewindMode, RewindPointView, RewindResult } from "../../runtime/rewind.ts";
import type { Runtime } from "../../runtime/runtime.ts";
import type { UserQuestion } from "../../core-types/question.ts";
import { oneLine, visible } from "../../text/visible.ts";
import type { TerminalAsker } from "./asker.ts";
import type { ChatInput } from "./input.ts";
import type { Screen } from "./screen.ts";
import type { Style } from "./style.ts";

/** The most prompts the menu offers (one digit each). */
export const MAX_SHOWN = 9;

export interface RewindHost {
  readonly runtime: Runtime;
  readonly screen: Screen;
  readonly style: Style;
  readonly input: ChatInput;
  readonly asker: TerminalAsker;
  /** Puts text in the next prompt, to edit. */
  editNext(text: string): void;
}

const list = (paths: readonly string[]) => paths.map((path) => oneLine(path, 200)).join(", ");

function changedText(point: RewindPointView): string {
  if (point.filesChanged === undefined) return point.filesNote ?? "its files are not kept";
  if (point.filesChanged.length === 0) return "no files changed since";
  const shown = point.filesChanged.slice(0, 6);
  const more = point.filesChanged.length - shown.length;
  return `changed since: ${list(shown)}${more > 0 ? ` and ${more} more` : ""}`;
}

function pointQuestion(points: readonly RewindPointView[], older: number): UserQuestion {
  return {
    kind: "ask_user",
    text:
      `Rewind to just before which ` +
      `prompt?${older > 0 ? ` (the newest ${points.length}; ${older} older not shown)` : ""}`,
    choices: points.map((point, index) => ({
      value: String(index + 1),
      label: oneLine(point.text, 80),
      description: changedText(point),
    })),
    multiple: false,
    freeText: false,
  };
}

/** What to put back, as offered for `point` (the files only when they are kept). */
function modeChoices(point: RewindPointView): Array<{ mode: RewindMode; label: string; description?: string }> {
  const filesKept = point.filesChanged !== undefined;
  return [
    ...(filesKept ? [{ mode: "both" as const, label: "Files and conversation" }] : []),
    { mode: "conversation", label: "Conversation only", description: "the files stay as they are" },
    ...(filesKept ? [{ mode: "files" as const, label: "Files only", description: "the conversation goes on" }] : []),
  ];
}

function modeQuestion(point: RewindPointView, modes: ReturnType<typeof modeChoices>): UserQuestion {
  return {
    kind: "ask_user",
    text: `Put back what, to before “${oneLine(point.text, 60)}”?`,
    choices: modes.map(({ label, description }, index) => ({
      value: String(index + 1),
      label,
      ...(description !== undefined && { description }),
    })),
    multiple: false,
    freeText: false,
  };
}

export async function rewindMenu(host: RewindHost): Promise<void> {
  const { runtime, screen, input, asker } = host;
  const all = await runtime.rewindPoints();
  if (all.length === 0) {
    screen.line("Nothing to rewind to: this session has no prompt yet.");
    return;
  }
  const points = all.slice(-MAX_SHOWN);
  const controller = new AbortController();
  input.onInterrupt(() => controller.abort());
  try {
    const picked = await asker.ask(pointQuestion(points, all.length - points.length), controller.signal);
    const point = picked.outcome === "answered" ? points[Number(picked.values[0]) - 1] : undefined;
    if (!point) return;
    const modes = modeChoices(point);
    const how = await asker.ask(modeQuestion(point, modes), controller.signal);
    const chosen = how.outcome === "answered" ? modes[Number(how.values[0]) - 1] : undefined;
    if (!chosen) return;
    const result = await runtime.rewind({ messageId: point.messageId, mode: chosen.mode, dryRun: false });
    show(host, point, result);
  } finally {
    input.onInterrupt(undefined);
  }
}

function show(host: RewindHost, point: RewindPointView, result: RewindResult): void {
  const { screen, style } = host;
  const files = result.files;
  if (files) {
    if (files.restored.length > 0) screen.line(style.green(`Restored ${list(files.restored)}.`));
    if (files.removed.length > 0) screen.line(style.green(`Removed ${list(files.removed)} (made after that prompt).`));
    for (const note of files.notes) screen.line(visible(note));
    if (files.canRewind && files.filesChanged.length === 0 && files.notes.length === 0)
      screen.line("The files were already as they were then.");
  }
  const conversation = result.conversation;
  if (conversation?.rewound) {
    screen.line(
      style.green(
        `The conversation is back to before “${oneLine(point.text, 60)}” ` +
          `(${conversation.messagesDropped} messages dropped). The prompt is yours to ` +
          `edit and send again.`,
      ),
    );
    host.editNext(point.text);
  } else if (conversation?.error) screen.line(style.red(visible(conversation.error)));
}
