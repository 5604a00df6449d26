// What a front end says when a turn stops short, for every front end: the editor (a "Garuda:"
// notice, live and in a replay: ACP's stopReason alone does not say whether "go on" helps, and
// editors show it differently), the terminal chat (a warning line) and `garuda run` (stderr,
// where nobody can "go on", so it takes the fact without the advice).
import type { StopReason } from "../core-types/events.ts";

interface StopNote {
  /** What happened, as a sentence's start ("the turn reached its step limit"). */
  fact: string;
  /** What the user can do next in a conversation, when anything. */
  advice?: string;
}

const NOTES: Partial<Record<StopReason, StopNote>> = {
  max_tokens: { fact: "the answer reached the model's output limit", advice: "ask it to go on" },
  refusal: { fact: "the model refused to answer" },
  max_steps: { fact: "the turn reached its step limit", advice: "say “go on” to continue" },
  token_budget: {
    fact: "this session has used its token budget, so Garuda does not call the model again in it",
    advice: "start a new session to go on",
  },
  repeated_calls: {
    fact: "the model made the same call several times in a row, so the turn was stopped",
    advice: "say what to do differently, or “go on”",
  },
};

const sentence = (text: string) => `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;

/** The note for a conversation (editor, chat): the fact, then the advice; undefined for a reason that needs none. */
export function stopNote(reason: StopReason): string | undefined {
  const note = NOTES[reason];
  if (!note) return undefined;
  return note.advice ? `${sentence(note.fact)} ${sentence(note.advice)}` : sentence(note.fact);
}

/** The fact alone (`garuda run`, where there is no next prompt). */
export function stopFact(reason: StopReason): string | undefined {
  return NOTES[reason]?.fact;
}
