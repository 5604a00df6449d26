// Subagents as child sessions, for a client that advertises them (initialize's
// `clientCapabilities.subagents`, or JetBrains AIR's `nativeSubagentSessions`). Each subagent run
// (runtime/child.ts: explore, a custom agent) gets a session id of its own; it is not a session the
// client can prompt, load or cancel on its own. The wire form is the draft one that Zed decodes
// (crates/agent_servers/src/acp/subagent_updates.rs), as codex-acp and claude-agent-acp sent it
// (the gate: initialize.ts wantsSubagents):
//   - on the parent session, `subagent_spawned {subagentSessionId, name, task, prompt,
//     capabilities: {}}` when the child starts, and `subagent_state_update {subagentSessionId,
//     state: completed | failed | cancelled}` when it ends;
//   - between them, the child's own updates (its text, thinking and tool calls, the same payloads
//     as a session's) with sessionId = the child's id, each with
//     `_meta.claudeCode.parentToolUseId` = the launching tool call, which is how Zed nests the
//     child inside that call;
//   - a question about a child's call goes as the child's (approver.ts): sessionId = the child's
//     id, the call the child's session shows.
// The parent's own card for the launching call stays as it is without the capability.
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import type { AgentEvent, SubagentEvent } from "../core-types/events.ts";
import { cutText } from "../text/cut.ts";
import { oneLine } from "../text/visible.ts";
import { EventMapper } from "./eventMapper.ts";
import { KnownCalls } from "./sessionChannel.ts";
import { editorCallId } from "./toolCallContent.ts";

/** The `_meta` key Zed reads to put a child's update inside the launching tool call (a vendor key, Claude's). */
const PARENT_META = "claudeCode";
/** The task line of subagent_spawned: the prompt's first line, cut. */
const MAX_TASK_CHARS = 200;
/** The prompt as subagent_spawned carries it. */
const MAX_PROMPT_CHARS = 20_000;

/** One running child: its session id, the calls its session shows, its mapper. */
export interface ChildSession {
  sessionId: string;
  calls: KnownCalls;
  /** Sends an update on the child's session, nested in the launching call. */
  send(update: SessionUpdate): void;
}

/** Sends an update on a session of this connection (the parent's channel, in order). */
export type SendAs = (update: SessionUpdate, sessionId: string) => void;

/** The child sessions of one parent session. */
export class SubagentSessions {
  /** The running children, by the launching call's id. */
  readonly #children = new Map<string, ChildSession & { mapper: EventMapper }>();
  #count = 0;

  constructor(
    private readonly parentId: string,
    private readonly root: string,
    private readonly sendAs: SendAs,
  ) {}

  /** The running child that `callId` launched. */
  child(callId: string): ChildSession | undefined {
    return this.#children.get(callId);
  }

  /**
   * Sends what `event` shows of a child, on the child's session. The parent's mapper still gets
   * every event: it shows none of a child's own, and its card of the launching call shows the
   * child's current call as it does without child sessions.
   */
  map(event: AgentEvent): void {
    if (event.type === "subagent") return this.#lifecycle(event);
    const parentCallId = "parentCallId" in event ? event.parentCallId : undefined;
    const child = parentCallId !== undefined ? this.#children.get(parentCallId) : undefined;
    if (!child) return;
    const { parentCallId: _parent, ...own } = event as AgentEvent & { parentCallId?: string };
    for (const update of child.mapper.map(own as AgentEvent)) child.send(update);
  }

  #lifecycle(event: SubagentEvent): void {
    switch (event.phase) {
      case "started":
        return this.#start(event.callId, event.name, event.prompt);
      case "text":
      case "thinking": {
        const child = this.#children.get(event.callId);
        if (!child) return;
        const type = event.phase === "text" ? "text_delta" : "thinking_delta";
        for (const update of child.mapper.map({ type, text: event.text })) child.send(update);
        return;
      }
      case "ended":
        return this.#end(event.callId, event.outcome);
    }
  }

  #start(callId: string, name: string, prompt: string): void {
    const sessionId = `${this.parentId}:subagent-${++this.#count}`;
    const calls = new KnownCalls();
    const nested = { [PARENT_META]: { parentToolUseId: editorCallId(callId) } };
    const child = {
      sessionId,
      calls,
      mapper: new EventMapper(calls, this.root),
      send: (update: SessionUpdate) => this.sendAs({ ...update, _meta: { ...update._meta, ...nested } }, sessionId),
    };
    // Announced on the parent before any update of the child's own (the draft's order).
    this.sendAs(
      {
        sessionUpdate: "subagent_spawned",
        subagentSessionId: sessionId,
        name,
        task: oneLine(cutText(prompt.split("\n", 1)[0] ?? "", MAX_TASK_CHARS)),
        prompt: cutText(prompt, MAX_PROMPT_CHARS),
        // No per-child cancel or close: cancelling the parent's turn ends its children.
        capabilities: {},
      } as unknown as SessionUpdate,
      this.parentId,
    );
    this.#children.set(callId, child);
  }

  #end(callId: string, outcome: "completed" | "failed" | "cancelled"): void {
    const child = this.#children.get(callId);
    if (!child) return;
    this.#children.delete(callId);
    // A call the child left open (a stop) ends failed in its session, as the parent's do.
    for (const call of child.calls.closeAll()) child.send(EventMapper.cancelled(call));
    this.sendAs(
      {
        sessionUpdate: "subagent_state_update",
        subagentSessionId: child.sessionId,
        state: outcome,
      } as unknown as SessionUpdate,
      this.parentId,
    );
  }
}
