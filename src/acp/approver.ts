// AcpApprover: Garuda's questions as session/request_permission. A question names the tool call
// it is about (the call's own id, from ApprovalRequest.callId); a question about anything the
// editor was not shown as a call (a consent, the network allowlist, a call inside a subagent)
// first gets an entry of its own. A call inside a subagent shown as a child session is asked about
// as that session's (subagentUpdates.ts). The editor only shows and answers: anything but a known
// option is a deny, and a stopped turn denies at once without waiting for the editor.
import type {
  PermissionOption,
  PermissionOptionKind,
  RequestPermissionRequest,
  RequestPermissionResponse,
  SessionUpdate,
} from "@agentclientprotocol/sdk";
import { withdrawnWhy } from "../core-types/withdrawn.ts";
import type { ApprovalRequest, Approver, Choice } from "../permission/types.ts";
import { oneLine } from "../text/visible.ts";
import { untilAborted } from "../untilAborted.ts";
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
  /** The subagents' child sessions (subagentUpdates.ts): a child's question goes as the child's. */
  children?: { child(callId: string): ChildSession | undefined };
}

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
    const { channel, calls } = this.options;
    // A question needs a running prompt: outside one no editor waits for it.
    if (signal.aborted || !channel.isOpen) return "deny";
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
      options: permissionOptions(request),
    };
    const choice = await this.#answer(params, request, signal);
    // A call asks before its tool runs (tool_start then shows it running). A question about a call
    // that already runs showed it waiting; after a yes it runs on.
    if (known?.running && choice !== "deny")
      send({ sessionUpdate: "tool_call_update", toolCallId, status: "in_progress" });
    if (own !== undefined) {
      const allowed = choice !== "deny";
      // A question taken back because its cause ended (the command's connection closed) says so.
      const withdrawn = withdrawnWhy(signal);
      const text = allowed
        ? `Allowed (${oneLine(request.labels[choice])}).`
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

  /** The editor's answer, or deny the moment the turn stops or the request fails. */
  #answer(params: RequestPermissionRequest, request: ApprovalRequest, signal: AbortSignal): Promise<Choice> {
    const stop = new AbortController();
    const answered = this.options.request(params, stop.signal).then(
      (response): Choice => (signal.aborted ? "deny" : choiceOf(response, request)),
      (): Choice => "deny",
    );
    return untilAborted(answered, signal, () => {
      stop.abort();
      return "deny";
    });
  }
}
