// A file change accepted hunk by hunk in the editor (issue 32.4), after the whole-edit question's
// "Choose hunks" option. An editor with forms gets one multi-select form: one checkbox per hunk,
// labelled by its `@@` line and first changed lines (hunkLabel: hidden characters visible, one
// line). Zed renders an `array` property whose items are titled options (`anyOf` of {const,
// title}) as checkboxes (crates/agent_ui/src/conversation_view/elicitation.rs, since PR #60749),
// so the hunks are one such field, not a boolean per hunk. An editor without forms gets one
// permission question per hunk, its diff shown: keep, leave out, or either for all the rest.
// Both are the neutral question (core-types/question.ts), checked like every answer: anything
// not offered, a decline or a stop keeps nothing, and the whole edit is denied.
import type { Asker, QuestionChoice, UserQuestion } from "../core-types/question.ts";
import type { FileChange } from "../core-types/fileChange.ts";
import type { Choice, PartialApproval } from "../permission/types.ts";
import { type Hunk, hunkAnswer, hunkLabel, hunkLines } from "../tools/hunks.ts";

export interface HunkReview {
  asker: Asker;
  /** The editor renders forms: one multi-select form, else one permission question per hunk. */
  forms: boolean;
  /** The call the questions are tied to (the edit's own card, or the question's entry). */
  callId: string;
  /** The whole-edit question's title, e.g. "Write a.txt". */
  title: string;
  change: FileChange;
  hunks: readonly Hunk[];
}

/** A hunk's value in a form: its number, from 1. */
const hunkValue = (k: number) => String(k + 1);

/** The form's question: which hunks to keep, one choice per hunk. */
export function hunksQuestion(review: Omit<HunkReview, "asker" | "forms">): UserQuestion {
  const { change, hunks } = review;
  return {
    kind: "edit_hunks",
    callId: review.callId,
    title: review.title,
    text:
      `${review.title}: which of its ${hunks.length} hunks should be written? Tick ` +
      `the ones to keep; the others are left out.`,
    choices: hunks.map((hunk, k) => ({ value: hunkValue(k), label: `${k + 1}. ${hunkLabel(change.oldText, hunk)}` })),
    multiple: true,
    freeText: false,
  };
}

const KEEP = "keep";
const LEAVE = "leave";
const KEEP_REST = "keep-rest";
const LEAVE_REST = "leave-rest";

/** The question about hunk k alone, its diff shown (an editor without forms). */
export function hunkQuestion(review: Omit<HunkReview, "asker" | "forms">, k: number): UserQuestion {
  const { change, hunks } = review;
  const last = k === hunks.length - 1;
  const choices: QuestionChoice[] = [
    { value: KEEP, label: "Keep this hunk" },
    { value: LEAVE, label: "Leave it out" },
    ...(last
      ? []
      : [
          { value: KEEP_REST, label: "Keep it and all the rest" },
          { value: LEAVE_REST, label: "Leave out this one and all the rest" },
        ]),
  ];
  return {
    kind: "edit_hunk",
    callId: review.callId,
    title: `${review.title}: hunk ${k + 1} of ${hunks.length}`,
    text: `Keep hunk ${k + 1} of ${hunks.length}?`,
    preview: { text: hunkLines(change.oldText, hunks[k] as Hunk).join("\n"), diff: true },
    choices,
    multiple: false,
    freeText: false,
  };
}

/** Which hunks to keep, by the form; undefined when the answer keeps nothing or is no answer. */
async function pickByForm(review: HunkReview, signal: AbortSignal): Promise<boolean[] | undefined> {
  const answer = await review.asker.ask(hunksQuestion(review), signal);
  if (answer.outcome !== "answered" || signal.aborted) return undefined;
  const picked = new Set(answer.values);
  return review.hunks.map((_hunk, k) => picked.has(hunkValue(k)));
}

/** Which hunks to keep, one question at a time; undefined at a decline, a stop or no answer. */
async function pickOneByOne(review: HunkReview, signal: AbortSignal): Promise<boolean[] | undefined> {
  const accepted: boolean[] = [];
  for (let k = 0; k < review.hunks.length; k++) {
    const answer = await review.asker.ask(hunkQuestion(review, k), signal);
    if (answer.outcome !== "answered" || signal.aborted) return undefined;
    const [value] = answer.values;
    if (value === KEEP || value === LEAVE) {
      accepted.push(value === KEEP);
      continue;
    }
    while (accepted.length < review.hunks.length) accepted.push(value === KEEP_REST);
  }
  return accepted;
}

/** The hunks chosen: every one is "once", none (or no answer) "deny", some a PartialApproval. */
export async function reviewHunks(review: HunkReview, signal: AbortSignal): Promise<Choice | PartialApproval> {
  const accepted = review.forms ? await pickByForm(review, signal) : await pickOneByOne(review, signal);
  if (!accepted) return "deny";
  return hunkAnswer(review.change.path, review.change.oldText, review.hunks, accepted);
}
