// AcpApprover: Garuda's questions as session/request_permission. A question names the tool call
// it is about (the call's own id, from ApprovalRequest.callId); a question about anything the
// editor was not shown as a call (a consent, the network allowlist, a call inside a subagent)
// first gets an entry of its own. A call inside a subagent shown as a child session is asked about
// as that session's (subagentUpdates.ts). The editor only shows and answers: anything but a known
// option is a deny, and a stopped turn denies at once without waiting for the editor.
// A file change of two hunks or more offers "Choose hunks" beside the usual options, and then
// asks which hunks to keep (hunkReview.ts). Where the editor has forms, a question that is no
// tool call (a consent: no callId) is a form instead (consentForm.ts), with no entry of its own.
import type {
  PermissionOption,
  PermissionOptionKind,
  RequestPermissionRequest,
  RequestPermissionResponse,
  SessionUpdate,
} from "@agentclientprotocol/sdk";
import type { Asker } from "../core-types/question.ts";
import { withdrawnWhy } from "../core-types/withdrawn.ts";
import type { ApprovalRequest, Approver, Choice, PartialApproval } from "../permission/types.ts";
import { changeHunks, type Hunk } from "../tools/hunks.ts";
import { oneLine } from "../text/visible.ts";
import { untilAborted } from "../untilAborted.ts";
import { askConsentByForm, LASTING } from "./consentForm.ts";
import { reviewHunks } from "./hunkReview.ts";
import { questionContent, questionText } from "./question.ts";
import { editorCallId, textContent } from "./toolCallContent.ts";
import type { KnownCalls, SessionChannel } from "./sessionChannel.ts";
import type { ChildSession } from "./subagentUpdates.ts";

const KINDS: Readonly<Record<Choice, PermissionOptionKind>> = {
  once: "allow_once",
  session: "allow_always",
  deny: "reject_once",
};

/** Sends the request to the editor; rejects on a transport error or when `signal` aborts. */
export type PermissionRequester = (
  params: RequestPermissionRequest,
  signal: AbortSignal,
) => Promise<RequestPermissionResponse>;

export interface AcpApproverOptions {
  sessionId: string;
  channel: SessionChannel;
  calls: KnownCalls;
  request: PermissionRequester;
  /** Puts the neutral questions (the hunks; with forms, the consents): the session's AcpAsker. */
  asker: Asker;
  /** The editor advertised `elicitation.form`. */
  forms: boolean;
  /** The subagents' child sessions (subagentUpdates.ts): a child's question goes as the child's. */
  children?: { child(callId: string): ChildSession | undefined };
}

/** The option of a file change's question that goes on to its hunks. */
export const HUNKS_OPTION = "hunks" as const;

/** The options of a question: its own choices in order, with its labels. */
export function permissionOptions(request: ApprovalRequest): PermissionOption[] {
  const choices: Choice[] = request.choices.includes("deny") ? request.choices : [...request.choices, "deny"];
  return choices.map((choice) => ({ optionId: choice, name: oneLine(request.labels[choice]), kind: KINDS[choice] }));
}

/** The answer: a known option's choice, else deny. */
export function choiceOf(response: RequestPermissionResponse, request: ApprovalRequest): Choice {
  const outcome = response.outcome;
  if (outcome.outcome !== "selected") return "deny";
  const choice = request.choices.find((c) => c === outcome.optionId);
  return choice ?? "deny";
}

export class AcpApprover implements Approver {
  #questions = 0;

  constructor(private readonly options: AcpApproverOptions) {}

  async ask(request: ApprovalRequest, signal: AbortSignal): Promise<Choice> {
    // A question needs a running prompt: outside one no editor waits for it.
    if (signal.aborted || !this.options.channel.isOpen) return "deny";
    const answer = await this.#consent({ ...request, lasting: undefined }, signal);
    return answer === LASTING ? "deny" : answer;
  }

  /** A question that also offers its lasting answer (a host remembered for the project). */
  askLasting(request: ApprovalRequest, signal: AbortSignal): Promise<Choice | typeof LASTING> {
    if (signal.aborted || !this.options.channel.isOpen) return Promise.resolve("deny");
    return this.#consent(request, signal);
  }

  /** A form where the editor has forms and no call asks; else the permission question. */
  async #consent(request: ApprovalRequest, signal: AbortSignal): Promise<Choice | typeof LASTING> {
    if (this.options.forms && request.callId === undefined)
      return askConsentByForm(this.options.asker, request, signal);
    const answer = await this.#question(request, signal, []);
    return typeof answer === "string" ? answer : "deny";
  }

  /** A file change of two hunks or more may be answered hunk by hunk ("Choose hunks"). */
  async askChange(request: ApprovalRequest, signal: AbortSignal): Promise<Choice | PartialApproval> {
    const change = request.change;
    const hunks = change ? changeHunks(change.oldText, change.newText) : [];
    if (hunks.length < 2) return this.ask(request, signal);
    if (signal.aborted || !this.options.channel.isOpen) return "deny";
    const answer = await this.#question({ ...request, lasting: undefined }, signal, hunks);
    return answer === LASTING ? "deny" : answer;
  }

  /** The permission question, with "Choose hunks" when `hunks` has two or more. */
  async #question(
    request: ApprovalRequest,
    signal: AbortSignal,
    hunks: Hunk[],
  ): Promise<Choice | PartialApproval | typeof LASTING> {
    const { channel, calls } = this.options;
    // A call inside a subagent is named with the subagent's card ("Subagent: reviewer › Write a.txt"),
    // so the user sees who asks.
    const parent = request.parentCallId !== undefined ? calls.open(request.parentCallId) : undefined;
    const title = parent ? `${oneLine(parent.title)} › ${oneLine(request.title)}` : oneLine(request.title);
    // A subagent shown as a child session asks as that session, about the call its session shows;
    // without one, a call inside a subagent was never shown to the editor as a call of its own.
    const child = request.parentCallId !== undefined ? this.options.children?.child(request.parentCallId) : undefined;
    const sessionId = child?.sessionId ?? this.options.sessionId;
    const send = (update: SessionUpdate) => (child ? child.send(update) : channel.send(update));
    const shown = child ? child.calls : request.parentCallId === undefined ? calls : undefined;
    const known = request.callId !== undefined ? shown?.open(request.callId) : undefined;
    let toolCallId: string;
    let own: string | undefined;
    if (known) {
      toolCallId = editorCallId(known.id);
    } else {
      own = `garuda-question-${++this.#questions}`;
      toolCallId = own;
      const entry: SessionUpdate = {
        sessionUpdate: "tool_call",
        toolCallId: own,
        title,
        kind: "other",
        status: "pending",
        content: [textContent(questionText(request))],
      };
      send(entry);
    }
    const params: RequestPermissionRequest = {
      sessionId,
      toolCall: {
        toolCallId,
        title,
        status: "pending",
        content: questionContent(request),
        ...(known && { kind: known.kind }),
      },
      options: [
        ...permissionOptions(request),
        ...(hunks.length > 1
          ? [{ optionId: HUNKS_OPTION, name: `Choose hunks (${hunks.length})…`, kind: "allow_once" as const }]
          : []),
        ...(request.lasting
          ? [{ optionId: LASTING, name: oneLine(request.lasting.label), kind: "allow_always" as const }]
          : []),
      ],
    };
    const extras: Array<typeof HUNKS_OPTION | typeof LASTING> = [
      ...(hunks.length > 1 ? [HUNKS_OPTION] : []),
      ...(request.lasting ? [LASTING] : []),
    ];
    const picked = await this.#answer(params, request, signal, extras);
    const choice: Choice | PartialApproval | typeof LASTING =
      picked === HUNKS_OPTION && request.change
        ? await reviewHunks(
            {
              asker: this.options.asker,
              forms: this.options.forms,
              callId: toolCallId,
              title,
              change: request.change,
              hunks,
            },
            signal,
          )
        : picked === HUNKS_OPTION
          ? "deny"
          : picked;
    // A call asks before its tool runs (tool_start then shows it running). A question about a call
    // that already runs showed it waiting; after a yes it runs on.
    if (known?.running && choice !== "deny")
      send({ sessionUpdate: "tool_call_update", toolCallId, status: "in_progress" });
    if (own !== undefined) {
      const allowed = choice !== "deny";
      // A question taken back because its cause ended (the command's connection closed) says so.
      const withdrawn = withdrawnWhy(signal);
      const text = allowed
        ? typeof choice === "object"
          ? `Allowed once: ${choice.hunks.kept.length} of ${hunks.length} hunks.`
          : choice === LASTING
            ? `Allowed (${oneLine(request.lasting?.label ?? "")}).`
            : `Allowed (${oneLine(request.labels[choice])}).`
        : withdrawn
          ? `Withdrawn: ${withdrawn}.`
          : "Denied.";
      send({
        sessionUpdate: "tool_call_update",
        toolCallId: own,
        status: allowed ? "completed" : "failed",
        content: [textContent(text)],
      });
    }
    return choice;
  }

  /**
   * The editor's answer: a choice, or one of the `extras` offered ("Choose hunks", the lasting
   * answer); deny the moment the turn stops or the request fails.
   */
  #answer<Extra extends string>(
    params: RequestPermissionRequest,
    request: ApprovalRequest,
    signal: AbortSignal,
    extras: readonly Extra[],
  ): Promise<Choice | Extra> {
    const stop = new AbortController();
    const answered = this.options.request(params, stop.signal).then(
      (response): Choice | Extra => {
        if (signal.aborted) return "deny";
        const outcome = response.outcome;
        const extra = extras.find((id) => outcome.outcome === "selected" && outcome.optionId === id);
        return extra ?? choiceOf(response, request);
      },
      (): Choice => "deny",
    );
    return untilAborted<Choice | Extra>(answered, signal, () => {
      stop.abort();
      return "deny";
    });
  }
}
