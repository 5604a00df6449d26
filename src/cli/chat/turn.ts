// One turn with the terminal's stop: Ctrl-C aborts the turn's signal (the executor kills the
// command's process group, a waiting question answers deny), then, as over ACP, the calls the
// stop ended get up to SETTLE_MS to report, the rest are closed as cancelled, and one line names
// each ("Garuda: $ sleep 60 cancelled.", or "Garuda: the turn was cancelled.").
import type { AgentEvent, StopReason } from "../../core-types/events.ts";
import { stopNote } from "../../display/stopNotes.ts";
import { ModelError } from "../../model/types.ts";
import type { Runtime } from "../../runtime/runtime.ts";
import { visible } from "../../text/visible.ts";
import { describeFailure } from "../errors.ts";
import type { OpenCalls, ShownCall } from "./calls.ts";
import type { Screen } from "./screen.ts";
import type { Style } from "./style.ts";
import type { Transcript } from "./transcript.ts";

/** After a stop, how long running calls may take to report (more than the executor's 2 s kill grace). */
const SETTLE_MS = 3_000;

export type TurnOutcome = { reason: StopReason } | { reason: "error"; error: unknown };

export interface TurnOptions {
  runtime: Runtime;
  prompt: string;
  transcript: Transcript;
  calls: OpenCalls;
  /** Aborted by Ctrl-C (or a signal). */
  signal: AbortSignal;
  settleMs?: number;
  /** Sees every event first, and the stop's own lines as notices (`garuda run --format json`). */
  tap?: (event: AgentEvent) => void;
}

/** Runs the turn to its end; never throws (a model or runtime error is the outcome). */
export async function runTurn(options: TurnOptions): Promise<TurnOutcome> {
  const { runtime, transcript, calls, signal, tap } = options;
  transcript.beginTurn();
  const onAbort = () => calls.stop();
  signal.addEventListener("abort", onAbort, { once: true });
  // A call an earlier stop left open is closed in the conversation too.
  runtime.closeOpenToolCalls();
  let outcome: TurnOutcome;
  try {
    outcome = {
      reason: await runtime.runTurn(options.prompt, signal, (event) => {
        tap?.(event);
        transcript.event(event);
      }),
    };
  } catch (error) {
    if (signal.aborted) {
      outcome = { reason: "cancelled" };
    } else {
      runtime.recordStop("error");
      for (const call of calls.closeAll()) closed(options, call);
      outcome = { reason: "error", error };
    }
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
  if (outcome.reason === "cancelled" || signal.aborted) {
    await settle(options);
    outcome = { reason: "cancelled" };
  }
  transcript.endTurn();
  return outcome;
}

/** A call with no result: closed as cancelled, on screen and for the tap. */
function closed(options: TurnOptions, call: ShownCall): void {
  options.tap?.({ type: "tool_result", callId: call.id, status: "failed", output: "Cancelled." });
  options.transcript.closedByStop(call.title);
}

async function settle(options: TurnOptions): Promise<void> {
  const { calls, transcript, tap } = options;
  const say = (text: string) => {
    tap?.({ type: "notice", level: "info", text });
    transcript.notice(text);
  };
  calls.stop();
  const ended = calls.ended();
  // A search the provider ran inside the answer cannot report after the stop.
  for (const call of ended) if (call.server && calls.finish(call.id)) closed(options, call);
  await calls.settle(options.settleMs ?? SETTLE_MS);
  for (const call of calls.closeAll()) closed(options, call);
  if (ended.length === 0) say("the turn was cancelled.");
  for (const call of ended) say(`${call.title} cancelled.`);
}

/** The chat's line for how a turn ended: its error in red, or the note of a stop that was not `done`. */
export function showTurnEnd(
  outcome: TurnOutcome,
  view: { screen: Screen; style: Style; transcript: Transcript },
): void {
  const { screen, style } = view;
  if (outcome.reason === "error")
    screen.line(
      style.red(
        outcome.error instanceof ModelError
          ? `Error: ${visible(outcome.error.message)}`
          : describeFailure(outcome.error).text,
      ),
    );
  else {
    const note = stopNote(outcome.reason);
    if (note) view.transcript.notice(`${note.slice(0, -1)} (${outcome.reason}).`, "warning");
  }
}
