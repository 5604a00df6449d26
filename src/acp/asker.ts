// AcpAsker: the model's questions (core-types/question.ts) put to the editor. An editor that
// advertises `elicitation.form` gets an `elicitation/create` form tied to the asking tool call
// (one single- or multi-select field of the choices, and a text field when free text is
// allowed); any other gets a `session/request_permission` with one option per choice and one to
// decline — one pick, no free text, and the model is told so (UserAnswer.without). The editor
// only shows and answers: what comes back is checked against what was offered (checkAnswer), and
// anything else is a decline. A stopped turn withdraws the question ($/cancel_request) and an
// answer after that is not read. The editor's approver asks through it too (approver.ts): the
// hunks of a file change, and where there are forms the consents that are no tool call; those
// questions carry a title and a preview (a hunk's diff), and have no call when they are consents.
import type {
  CreateElicitationRequest,
  CreateElicitationResponse,
  ElicitationPropertySchema,
  EnumOption,
  PermissionOption,
  RequestPermissionRequest,
  RequestPermissionResponse,
} from "@agentclientprotocol/sdk";
import {
  type Asker,
  checkAnswer,
  MAX_ANSWER_CHARS,
  type QuestionLimit,
  type UserAnswer,
  type UserQuestion,
} from "../core-types/question.ts";
import { oneLine, visible } from "../text/visible.ts";
import { untilAborted } from "../untilAborted.ts";
import type { PermissionRequester } from "./approver.ts";
import { codeBlock } from "./codeBlock.ts";
import type { KnownCalls, SessionChannel } from "./sessionChannel.ts";
import { editorCallId, textContent } from "./toolCallContent.ts";

/** Sends an elicitation/create; rejects on a transport error or when `signal` aborts. */
export type ElicitationRequester = (
  params: CreateElicitationRequest,
  signal: AbortSignal,
) => Promise<CreateElicitationResponse>;

export interface AcpAskerOptions {
  sessionId: string;
  channel: SessionChannel;
  calls: KnownCalls;
  /** The editor advertised `elicitation.form` at initialize. */
  forms: boolean;
  elicit: ElicitationRequester;
  request: PermissionRequester;
}

/** The form's fields: the pick (one or several) and the user's own words. */
export const FIELDS = { choice: "choice", choices: "choices", text: "text" } as const;
/** The permission option that declines; a choice's option is `choice-<value>`. */
export const DECLINE_OPTION = "decline";
const CHOICE_PREFIX = "choice-";

/** What the permission option that declines says, by kind of question. */
const DECLINE_LABELS: Readonly<Record<UserQuestion["kind"], string>> = {
  ask_user: "Decline to answer",
  edit_hunks: "Deny the whole edit",
  edit_hunk: "Deny the whole edit",
  consent: "No",
};

/** The title of the form's pick field, by kind of question. */
function pickTitle(question: UserQuestion): string {
  if (question.kind === "edit_hunks") return "Hunks to keep (the others are not written)";
  if (question.kind === "consent") return "Allow";
  return question.multiple ? "Pick one or more" : "Pick one";
}

const CANCELLED: UserAnswer = { outcome: "cancelled" };
const DECLINED: UserAnswer = { outcome: "declined" };

/** Whether the editor renders elicitation forms (clientCapabilities.elicitation.form, `{}` meaning yes). */
export function wantsForms(capabilities: { elicitation?: { form?: unknown } | null } | undefined): boolean {
  const form = capabilities?.elicitation?.form;
  return typeof form === "object" && form !== null;
}

function enumOptions(question: UserQuestion): EnumOption[] {
  return question.choices.map((choice) => ({
    const: choice.value,
    title: oneLine(choice.label),
    ...(choice.description !== undefined && { description: oneLine(choice.description, 500) }),
  }));
}

/** The form of a question: its fields and which are required. */
export function formSchema(question: UserQuestion): {
  properties: Record<string, ElicitationPropertySchema>;
  required: string[];
} {
  const properties: Record<string, ElicitationPropertySchema> = {};
  const required: string[] = [];
  const hasChoices = question.choices.length > 0;
  if (hasChoices && question.multiple) {
    properties[FIELDS.choices] = {
      type: "array",
      title: pickTitle(question),
      items: { anyOf: enumOptions(question) },
      ...(!question.freeText && { minItems: 1 }),
      maxItems: question.choices.length,
    };
  } else if (hasChoices) {
    properties[FIELDS.choice] = { type: "string", title: pickTitle(question), oneOf: enumOptions(question) };
  }
  if (question.freeText)
    properties[FIELDS.text] = {
      type: "string",
      title: hasChoices ? "Or answer in your own words" : "Your answer",
      maxLength: MAX_ANSWER_CHARS,
    };
  if (!question.freeText) required.push(question.multiple ? FIELDS.choices : FIELDS.choice);
  else if (!hasChoices) required.push(FIELDS.text);
  return { properties, required };
}

/** The answer in a form's response: only the question's own fields, each checked (checkAnswer). */
export function formAnswer(question: UserQuestion, response: CreateElicitationResponse): UserAnswer {
  if (response.action === "decline") return DECLINED;
  if (response.action === "cancel") return CANCELLED;
  if (response.action !== "accept") return DECLINED;
  const content = (response as { content?: unknown }).content;
  if (typeof content !== "object" || content === null || Array.isArray(content)) return DECLINED;
  const fields = content as Record<string, unknown>;
  const allowed = new Set(Object.keys(formSchema(question).properties));
  if (Object.keys(fields).some((key) => !allowed.has(key))) return DECLINED;
  const pick = question.multiple ? fields[FIELDS.choices] : fields[FIELDS.choice];
  const values = pick === undefined ? [] : question.multiple ? pick : [pick];
  return checkAnswer(question, values, fields[FIELDS.text]);
}

/** The permission options of a question: one per choice, then decline. */
export function questionOptions(question: UserQuestion): PermissionOption[] {
  return [
    ...question.choices.map(
      (choice): PermissionOption => ({
        optionId: `${CHOICE_PREFIX}${choice.value}`,
        name: oneLine(choice.label),
        kind: "allow_once",
      }),
    ),
    { optionId: DECLINE_OPTION, name: DECLINE_LABELS[question.kind], kind: "reject_once" },
  ];
}

/** What an editor without forms could not offer of a question. */
function limitsOf(question: UserQuestion): QuestionLimit[] {
  const without: QuestionLimit[] = [];
  if (question.freeText) without.push("free_text");
  if (question.multiple) without.push("multiple");
  return without;
}

/** The answer in a permission response: a known choice's option, else a decline. */
export function permissionAnswer(question: UserQuestion, response: RequestPermissionResponse): UserAnswer {
  const outcome = response.outcome;
  if (outcome.outcome === "cancelled") return CANCELLED;
  if (outcome.outcome !== "selected" || typeof outcome.optionId !== "string") return DECLINED;
  if (!outcome.optionId.startsWith(CHOICE_PREFIX)) return DECLINED;
  const answer = checkAnswer(question, [outcome.optionId.slice(CHOICE_PREFIX.length)], undefined);
  const without = limitsOf(question);
  return answer.outcome === "answered" && without.length > 0 ? { ...answer, without } : answer;
}

/**
 * The question as Markdown: what is asked, the preview as a code block, then each choice's
 * description (hidden characters visible).
 */
function questionBody(question: UserQuestion): string {
  const described = question.choices
    .filter((choice) => choice.description !== undefined)
    .map((choice) => `- ${oneLine(choice.label)}: ${oneLine(choice.description ?? "", 500)}`);
  const preview = question.preview
    ? [codeBlock(visible(question.preview.text), question.preview.diff ? "diff" : "")]
    : [];
  return [visible(question.text), ...preview, ...(described.length > 0 ? [described.join("\n")] : [])].join("\n\n");
}

/** A form's message: plain text (editors show it as it is), the preview below the question. */
function formMessage(question: UserQuestion): string {
  const preview = question.preview ? visible(question.preview.text) : "";
  return preview.trim() === "" ? visible(question.text) : `${visible(question.text)}\n\n${preview}`;
}

export class AcpAsker implements Asker {
  constructor(private readonly options: AcpAskerOptions) {}

  async ask(question: UserQuestion, signal: AbortSignal): Promise<UserAnswer> {
    const { channel, calls, forms } = this.options;
    // A question needs a running prompt: outside one no editor waits for it.
    if (signal.aborted || !channel.isOpen) return CANCELLED;
    const known = question.callId !== undefined ? calls.open(question.callId) : undefined;
    const callId = known?.id ?? question.callId;
    if (forms) return this.#form(question, callId === undefined ? undefined : editorCallId(callId), signal);
    const toolCallId = editorCallId(callId ?? "garuda-ask");
    // Without a text field a question that has no choices cannot be put.
    if (question.choices.length === 0) return { outcome: "unavailable", without: ["free_text"] };
    return this.#permission(question, toolCallId, signal);
  }

  /** A form, tied to the asking call's card when there is a call (a consent has none). */
  #form(question: UserQuestion, toolCallId: string | undefined, signal: AbortSignal): Promise<UserAnswer> {
    const { properties, required } = formSchema(question);
    const params: CreateElicitationRequest = {
      mode: "form",
      sessionId: this.options.sessionId,
      ...(toolCallId !== undefined && { toolCallId }),
      message: formMessage(question),
      requestedSchema: { type: "object", properties, ...(required.length > 0 && { required }) },
    };
    return this.#answer(
      (stop) => this.options.elicit(params, stop),
      signal,
      (response) => formAnswer(question, response),
    );
  }

  #permission(question: UserQuestion, toolCallId: string, signal: AbortSignal): Promise<UserAnswer> {
    const params: RequestPermissionRequest = {
      sessionId: this.options.sessionId,
      toolCall: {
        toolCallId,
        title: question.title !== undefined ? oneLine(question.title) : `Ask: ${oneLine(question.text, 120)}`,
        status: "pending",
        content: [textContent(questionBody(question))],
      },
      options: questionOptions(question),
    };
    return this.#answer(
      (stop) => this.options.request(params, stop),
      signal,
      (response) => permissionAnswer(question, response),
    );
  }

  /**
   * The editor's answer, read by `read`; a failed request is a decline. The moment the turn
   * stops the request is withdrawn and the question is cancelled: a late answer is not read.
   */
  #answer<R>(send: (stop: AbortSignal) => Promise<R>, signal: AbortSignal, read: (response: R) => UserAnswer) {
    const stop = new AbortController();
    const answered = send(stop.signal).then(
      (response): UserAnswer => (signal.aborted ? CANCELLED : read(response)),
      (): UserAnswer => (signal.aborted ? CANCELLED : DECLINED),
    );
    return untilAborted(answered, signal, () => {
      stop.abort();
      return CANCELLED;
    });
  }
}
