// `garuda run`'s stderr: the chat's transcript, plus the end of a failed command's output. The
// transcript gives a call's result one line (the command's "Exit code 1"), and a command's
// progress is sampled; in a CI log nobody can look further, and the reason a command failed is
// usually in its last lines, so they are shown under the result. And an answer that broke off
// was never written to stdout (answer.ts), so the retry's notice says that, not that the text
// above is void.
import type { AgentEvent } from "../../core-types/events.ts";
import { oneLine } from "../../text/visible.ts";
import { Transcript, type TranscriptOptions } from "../chat/transcript.ts";

/** How many of a failed command's last lines are shown. */
const TAIL_LINES = 5;

/** The bash tool's first line of output ("Exit code: 1"), which the result line already says. */
const HEADLINE = /^Exit code: /;

/** The last non-empty lines of a command's output, without the bash tool's headline. */
export function outputTail(output: string, count = TAIL_LINES): string[] {
  const lines = output.split(/\r?\n/);
  if (HEADLINE.test(lines[0] ?? "")) lines.shift();
  return lines.filter((line) => line.trim() !== "").slice(-count);
}

/** The notice for a response that broke off mid-stream and is asked again. */
export function brokenOff(event: Extract<AgentEvent, { type: "model_retry" }>): string {
  const delay = event.delayMs > 0 ? `, in ${Math.ceil(event.delayMs / 1000)} s` : "";
  return (
    `the model's answer broke off (${event.reason}); trying again (attempt ` +
    `${event.attempt}${delay}). What it wrote so far is left out of the answer.`
  );
}

export class RunTranscript extends Transcript {
  readonly #options: TranscriptOptions;
  /** Commands (bash calls) of the turn, by call id. */
  readonly #commands = new Set<string>();

  constructor(options: TranscriptOptions) {
    super(options);
    this.#options = options;
  }

  override beginTurn(): void {
    super.beginTurn();
    this.#commands.clear();
  }

  override event(event: AgentEvent): void {
    if (event.type === "model_retry" && event.partial) {
      this.notice(brokenOff(event), "warning");
      return;
    }
    const failedCommand = event.type === "tool_result" && this.#failedCommand(event);
    super.event(event);
    if (event.type === "tool_call" && event.tool === "bash" && event.parentCallId === undefined)
      this.#commands.add(event.callId);
    if (failedCommand) this.#tail(event.output);
  }

  /** A command of this turn that failed on its own (not one the stop ended: that one is "Cancelled"). */
  #failedCommand(event: Extract<AgentEvent, { type: "tool_result" }>): boolean {
    const { calls } = this.#options;
    return (
      event.status === "failed" &&
      this.#commands.has(event.callId) &&
      calls.open(event.callId) !== undefined &&
      !calls.endedByStop(event.callId)
    );
  }

  #tail(output: string): void {
    const { activity, style } = this.#options;
    for (const line of outputTail(output)) activity.line(style.dim(`    ${oneLine(line, 300)}`));
  }
}
