// What one ACP session has of the editor before it has a runtime: the runtime is prepared with
// this link's approver (the permission questions) and its project-trust answers, so the link is
// made first, then the runtime, then the Session (session.ts) with both.
import * as acp from "@agentclientprotocol/sdk";
import { AcpApprover } from "./approver.ts";
import { AcpAsker } from "./asker.ts";
import { EditorProjectTrust } from "./projectTrust.ts";
import { KnownCalls, SessionChannel } from "./sessionChannel.ts";
import { SubagentSessions } from "./subagentUpdates.ts";

export class SessionLink {
  /** The tool calls the editor has been shown, so a question can name its call and a stop close them. */
  readonly calls = new KnownCalls();
  /** The turn's updates, in order, sent only while a prompt runs. */
  readonly channel: SessionChannel;
  /** Permission questions; the hunks of a change and, with forms, the consents go through the asker. */
  readonly approver: AcpApprover;
  /** The model's questions (ask_user): a form where the editor has forms, else a permission request. */
  readonly asker: AcpAsker;
  /** The project's settings and hooks waiting for a yes, and the answers given. */
  readonly trust = new EditorProjectTrust();

  /** The subagents' child sessions, when the client takes them (subagentUpdates.ts). */
  readonly subagents: SubagentSessions | undefined;

  constructor(
    readonly id: string,
    private readonly client: acp.AgentContext,
    features: { forms: boolean; subagents?: { root: string } } = { forms: false },
  ) {
    this.channel = new SessionChannel((update, sessionId) => this.notify(update, sessionId));
    this.subagents = features.subagents
      ? new SubagentSessions(id, features.subagents.root, (update, sessionId) => this.channel.send(update, sessionId))
      : undefined;
    const request = (params: acp.RequestPermissionRequest, signal: AbortSignal) =>
      client.request(acp.methods.client.session.requestPermission, params, {
        cancellationSignal: signal,
        stopWaitingOnCancel: true,
      });
    this.asker = new AcpAsker({
      sessionId: id,
      channel: this.channel,
      calls: this.calls,
      forms: features.forms,
      request,
      elicit: (params, signal) =>
        client.request(acp.methods.client.elicitation.create, params, {
          cancellationSignal: signal,
          stopWaitingOnCancel: true,
        }),
    });
    this.approver = new AcpApprover({
      sessionId: id,
      channel: this.channel,
      calls: this.calls,
      request,
      asker: this.asker,
      forms: features.forms,
      ...(this.subagents && { children: this.subagents }),
    });
  }

  /**
   * Writes one session/update now (on this session, or a child's), prompt or not; the promise fails when the transport
   * does.
   */
  notify(update: acp.SessionUpdate, sessionId = this.id): Promise<void> {
    return this.client.notify(acp.methods.client.session.update, { sessionId, update });
  }
}
