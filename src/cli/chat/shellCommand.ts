// `!cmd` at the start of the prompt: the user's own shell command, run by the session's bash tool
// (Runtime.runUserCommand: the same permission engine, OS sandbox and audit as the model's
// commands), drawn as the transcript draws a command (title, live output, the result line).
// Neither the command nor its output is sent to the model: the line after it says so, and the
// user puts what the model should know into a prompt.
import type { Runtime } from "../../runtime/runtime.ts";
import { describeFailure } from "../errors.ts";
import type { Screen } from "./screen.ts";
import type { Style } from "./style.ts";
import type { Transcript } from "./transcript.ts";

/** The command of a prompt that is one (`!git status` → "git status"); undefined for any other prompt. */
export function shellCommandOf(text: string): string | undefined {
  const trimmed = text.trimStart();
  return trimmed.startsWith("!") ? trimmed.slice(1).trim() : undefined;
}

export interface ShellCommandContext {
  runtime: Runtime;
  transcript: Transcript;
  screen: Screen;
  style: Style;
  /** Aborted by Ctrl-C (or Esc): the executor stops the command and every process it started. */
  signal: AbortSignal;
}

export const NOT_SENT_NOTE = "(your command: neither it nor its output was sent to the model)";

/** Runs the command to its end; never throws. */
export async function runShellCommand(command: string, ctx: ShellCommandContext): Promise<void> {
  const { transcript, screen, style } = ctx;
  if (command === "") {
    screen.line(style.dim("Type a shell command after the !: !git status"));
    return;
  }
  transcript.beginTurn();
  try {
    await ctx.runtime.runUserCommand(command, ctx.signal, (event) => transcript.event(event));
  } catch (error) {
    transcript.endTurn();
    screen.line(style.red(describeFailure(error).text));
    return;
  }
  transcript.endTurn();
  screen.line(style.dim(NOT_SENT_NOTE));
}
