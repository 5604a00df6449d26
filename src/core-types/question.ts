// A question put to the user (DESIGN.md: "asking the user is a tool, answering is a front end's
// job"). One neutral shape — what kind, the text, the choices, whether several may be picked and
// whether free text is allowed — that each front end renders its own way: over ACP an
// elicitation form or a permission request (src/acp/asker.ts), in the terminal chat a menu
// (src/cli/chat/asker.ts). What comes back is data: checkAnswer() holds it against what was
// offered, and anything else (a value never offered, a wrong type, text too long) is a decline.
// The ask_user tool asks through it; so does the editor's approver (src/acp/approver.ts) for a
// file change chosen hunk by hunk and, where the editor has forms, for the consents that are no
// tool call (a host for the network allowlist, project settings, an MCP server, hooks).

/**
 * What the question is for; a front end may phrase or lay it out by kind. "edit_hunks": which
 * hunks of a file change to keep (several picks); "edit_hunk": one hunk of it (keep or leave
 * out); "consent": a permission question that is no tool call.
 */
export type QuestionKind = "ask_user" | "edit_hunks" | "edit_hunk" | "consent";

export interface QuestionChoice {
  /** What the answer carries back (a short id, never shown as the label). */
  value: string;
  /** What the user reads. */
  label: string;
  description?: string;
}

export interface UserQuestion {
  kind: QuestionKind;
  /** The tool call that asks, so a front end ties the question to the call's card. */
  callId?: string;
  /** A short heading, where a front end shows one (a permission card's title). */
  title?: string;
  text: string;
  /** What to look at to decide (a hunk's diff, a server's definition), shown as code. */
  preview?: { text: string; diff: boolean };
  /** In the order to show them; may be empty when only free text is asked for. */
  choices: QuestionChoice[];
  /** Several choices may be picked. */
  multiple: boolean;
  /** The user may answer in words (besides the choices, or instead of them when there are none). */
  freeText: boolean;
}

/** What a front end could not offer of the question (an editor without forms: one pick, no free text). */
export type QuestionLimit = "free_text" | "multiple";

export type UserAnswer =
  | {
      outcome: "answered";
      /** The values of the choices picked, in the question's order. */
      values: string[];
      /** The user's own words, when free text was allowed and given. */
      text?: string;
      /** What the front end could not offer, so the model is told. */
      without?: QuestionLimit[];
    }
  /** The user said no to answering. Also every answer that fails the checks. */
  | { outcome: "declined" }
  /** The user closed the question without an answer, or the turn stopped while it waited. */
  | { outcome: "cancelled" }
  /** The front end cannot put this question at all (free text only, and no text field): not asked. */
  | { outcome: "unavailable"; without: QuestionLimit[] };

/** Asks the user; a front end's job. Resolves "cancelled" at once when `signal` aborts. */
export interface Asker {
  ask(question: UserQuestion, signal: AbortSignal): Promise<UserAnswer>;
}

/** The longest free-text answer taken, in characters; a longer one is refused, not cut. */
export const MAX_ANSWER_CHARS = 4_000;

const DECLINED: UserAnswer = { outcome: "declined" };

/**
 * An answer as a front end received it (raw, unchecked: `values` and `text` may be anything an
 * editor sent), checked against the question: each value must be one offered, at most one unless
 * `multiple`, no repeats; text only where free text was allowed, a string of at most
 * MAX_ANSWER_CHARS; and something must be answered. Anything else is a decline.
 */
export function checkAnswer(question: UserQuestion, values: unknown, text: unknown): UserAnswer {
  if (!Array.isArray(values) || !values.every((value) => typeof value === "string")) return DECLINED;
  const picked = new Set<string>(values);
  if (picked.size !== values.length) return DECLINED;
  if (!question.multiple && picked.size > 1) return DECLINED;
  const offered = new Set(question.choices.map((choice) => choice.value));
  for (const value of picked) if (!offered.has(value)) return DECLINED;
  let words: string | undefined;
  if (text !== undefined && text !== null) {
    if (typeof text !== "string" || !question.freeText || text.length > MAX_ANSWER_CHARS) return DECLINED;
    words = text.trim() === "" ? undefined : text;
  }
  if (picked.size === 0 && words === undefined) return DECLINED;
  const inOrder = question.choices.filter((choice) => picked.has(choice.value)).map((choice) => choice.value);
  return { outcome: "answered", values: inOrder, ...(words !== undefined && { text: words }) };
}
