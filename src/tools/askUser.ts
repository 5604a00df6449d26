// ask_user: the model asks the user one question with a few options (one or several to pick) or
// free text, when it cannot go on without them. The tool only builds the neutral question
// (core-types/question.ts) and words the answer for the model; a front end (the session's Asker)
// shows it and brings the checked answer back. It exists only where someone can answer: a
// session built without an Asker (`garuda run`) does not list it, and subagents never get it
// (runtime/child.ts). It reads nothing and changes nothing, so plan mode may use it.
import { z } from "zod";
import type { Asker, QuestionLimit, UserAnswer, UserQuestion } from "../core-types/question.ts";
import { oneLine } from "../text/visible.ts";
import description from "./askUser.txt" with { type: "text" };
import type { Tool, ToolResult } from "./types.ts";

export const ASK_USER_TOOL = "ask_user";
export const MAX_OPTIONS = 8;
const MAX_QUESTION_CHARS = 2_000;
const MAX_LABEL_CHARS = 100;
const MAX_DESCRIPTION_CHARS = 300;

const option = z.object({
  label: z.string().trim().min(1, "an option needs a label").max(MAX_LABEL_CHARS),
  description: z.string().trim().max(MAX_DESCRIPTION_CHARS).optional(),
});

const input = z
  .object({
    question: z.string().trim().min(1, "ask a question").max(MAX_QUESTION_CHARS),
    options: z.array(option).max(MAX_OPTIONS, `at most ${MAX_OPTIONS} options`).optional(),
    multiple: z.boolean().optional(),
    allow_text: z.boolean().optional(),
  })
  .refine((args) => (args.options ?? []).length !== 1, "give at least 2 options, or none for a free-text question")
  .refine(
    (args) => new Set((args.options ?? []).map((o) => o.label)).size === (args.options ?? []).length,
    "option labels must be distinct",
  )
  .refine((args) => !args.multiple || (args.options ?? []).length >= 2, "multiple needs options to pick from");
export type AskUserInput = z.infer<typeof input>;

/** The neutral question for an input: choices numbered "1", "2" … (the model's labels are only shown). */
export function questionOf(args: AskUserInput, callId: string): UserQuestion {
  const choices = (args.options ?? []).map((o, n) => ({
    value: String(n + 1),
    label: o.label,
    ...(o.description !== undefined && o.description !== "" && { description: o.description }),
  }));
  return {
    kind: "ask_user",
    callId,
    text: args.question,
    choices,
    multiple: args.multiple === true,
    freeText: choices.length === 0 || args.allow_text === true,
  };
}

const LIMITS: Readonly<Record<QuestionLimit, string>> = {
  free_text: "The user's editor cannot show a text field, so they could only pick one of your options.",
  multiple: "The user's editor lets them pick only one option.",
};

export const DECLINED_OUTPUT =
  "The user declined to answer. Do not ask this again: go on with what you can do " +
  "without the answer, and say in your reply what you assumed or what is left " +
  "open.";
export const DISMISSED_OUTPUT =
  "The user closed the question without answering. Do not ask it again now: go on " +
  "with what you can do without it, or end your turn and say what you need from " +
  "them.";

export const UNAVAILABLE_OUTPUT =
  "The question was not asked: the user's editor cannot show a text field, only " +
  "options to pick. Ask again with 2 to 8 options, or go on without the answer.";

/** What the model reads for an answer. */
export function answerText(question: UserQuestion, answer: UserAnswer): string {
  if (answer.outcome === "declined") return DECLINED_OUTPUT;
  if (answer.outcome === "cancelled") return DISMISSED_OUTPUT;
  if (answer.outcome === "unavailable") return UNAVAILABLE_OUTPUT;
  const labels = question.choices.filter((c) => answer.values.includes(c.value)).map((c) => JSON.stringify(c.label));
  const lines: string[] = [];
  if (labels.length > 0) lines.push(`The user chose: ${labels.join(", ")}.`);
  if (answer.text !== undefined) lines.push(`The user wrote:\n${answer.text}`);
  for (const limit of answer.without ?? []) lines.push(LIMITS[limit]);
  return lines.join("\n");
}

/** The card's one-line summary. */
function summaryOf(answer: UserAnswer): string {
  if (answer.outcome === "declined") return "Declined";
  if (answer.outcome === "cancelled") return "No answer";
  if (answer.outcome === "unavailable") return "Not asked";
  return "Answered";
}

export function askUserTool(asker: Asker): Tool<AskUserInput> {
  // One question at a time: two calls of one step (both read-only, so run together) ask in turn.
  let queue: Promise<unknown> = Promise.resolve();
  return {
    name: ASK_USER_TOOL,
    description,
    input,
    readOnly: true,
    plan: (args) => ({
      input: args,
      info: { title: `Ask: ${oneLine(args.question, 120)}`, kind: "other", locations: [] },
      permission: { tool: ASK_USER_TOOL, readOnly: true, target: { kind: "input" }, preview: args.question },
    }),
    async run({ input: args }, ctx): Promise<ToolResult> {
      const question = questionOf(args, ctx.callId);
      const asked = queue.then(() => (ctx.signal.aborted ? undefined : asker.ask(question, ctx.signal)));
      queue = asked.catch(() => {});
      const answer = await asked;
      // A stopped turn: the registry says "Cancelled by the user." to the model.
      if (answer === undefined || ctx.signal.aborted) return { output: "", summary: "Stopped" };
      return { output: answerText(question, answer), summary: summaryOf(answer) };
    },
  };
}
