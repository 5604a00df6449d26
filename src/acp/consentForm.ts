// A consent that is no tool call (a host for the network allowlist, project settings that loosen
// safety, project hooks, an editor's or the project's MCP server) as a form, where the editor
// has forms (issue 32.3): one single-select field of its real choices with their own labels
// ("Allow for this session" says which rule it adds, e.g. `network(registry.npmjs.org)`), the
// question, why it asks, and what it is about (the preview) as the form's message. "No" is the
// form's own Decline. Anything but an offered choice — a decline, a dismissal, a value never
// offered, an answer after the question was withdrawn — is a deny (checkAnswer, then here).
import { HIDDEN_WARNING } from "../cli/approver.ts";
import type { Asker, QuestionChoice, UserQuestion } from "../core-types/question.ts";
import type { ApprovalRequest, Choice } from "../permission/types.ts";
import { oneLine } from "../text/visible.ts";

/** The value of the lasting choice (ApprovalRequest.lasting) in a form. */
export const LASTING = "lasting" as const;

/** The consent as the neutral question: its choices but "deny", in its order, then the lasting one. */
export function consentQuestion(request: ApprovalRequest): UserQuestion {
  const lasting = request.lasting;
  const own = request.choices
    .filter((choice) => choice !== "deny")
    .map((choice): QuestionChoice => {
      const rules = choice === "session" ? (request.sessionRules ?? []) : [];
      return {
        value: choice,
        label: oneLine(request.labels[choice]),
        ...(rules.length > 0 && { description: `Adds the rule ${rules.map((rule) => oneLine(rule)).join(", ")}` }),
      };
    });
  const choices = lasting
    ? [...own, { value: LASTING, label: oneLine(lasting.label), description: oneLine(lasting.description, 500) }]
    : own;
  const text = [
    oneLine(request.title),
    ...(request.question ? [oneLine(request.question, 500)] : []),
    ...(request.note ? [`(${oneLine(request.note, 500)})`] : []),
    ...(request.hidden ? [HIDDEN_WARNING] : []),
  ].join("\n\n");
  return {
    kind: "consent",
    title: request.title,
    text,
    ...(request.preview.trim() !== "" && { preview: { text: request.preview, diff: false } }),
    choices,
    multiple: false,
    freeText: false,
  };
}

/** The user's choice, by the form: an offered choice (the lasting one when offered), else deny. */
export async function askConsentByForm(
  asker: Asker,
  request: ApprovalRequest,
  signal: AbortSignal,
): Promise<Choice | typeof LASTING> {
  const answer = await asker.ask(consentQuestion(request), signal);
  if (answer.outcome !== "answered" || signal.aborted) return "deny";
  const [value] = answer.values;
  if (request.lasting && value === LASTING) return LASTING;
  return request.choices.find((choice) => choice !== "deny" && choice === value) ?? "deny";
}
