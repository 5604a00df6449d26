// How a turn's end reaches the editor: ACP's stop reason for each of the runtime's, and after a
// stop (session/cancel), the calls it ended: each gets up to settleMs to report, the rest are
// closed as cancelled, and one line names each (stopNotes.ts has the wording). Apart from
// session.ts, which runs the turn.
import type * as acp from "@agentclientprotocol/sdk";
import type { StopReason } from "../core-types/events.ts";
import type { KnownCalls } from "./sessionChannel.ts";
import type { SessionMapper } from "./sessionMapper.ts";
import { stopLines } from "./stopNotes.ts";

export const STOP_REASONS: Readonly<Record<StopReason, acp.StopReason>> = {
  done: "end_turn",
  max_tokens: "max_tokens",
  refusal: "refusal",
  max_steps: "max_turn_requests",
  token_budget: "max_turn_requests",
  repeated_calls: "max_turn_requests",
  cancelled: "cancelled",
};

export interface StoppedTurn {
  calls: KnownCalls;
  mapper: SessionMapper;
  send: (updates: acp.SessionUpdate[]) => void;
  say: (text: string) => void;
  /** How long running calls may take to report. */
  settleMs: number;
}

/** After a stop: running calls get up to settleMs to report; each one the stop ended is named. */
export async function settleAfterStop(turn: StoppedTurn): Promise<void> {
  const { calls, mapper, send } = turn;
  calls.stop();
  const ended = calls.ended();
  // A search the provider ran inside the answer cannot report after the stop.
  for (const call of ended) if (call.server && calls.finish(call.id)) send(mapper.cancelled(call));
  await calls.settle(turn.settleMs);
  send(calls.closeAll().flatMap((call) => mapper.cancelled(call)));
  for (const line of stopLines(ended.map((call) => call.title))) turn.say(line);
}
