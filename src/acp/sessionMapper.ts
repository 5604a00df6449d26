// A session's AgentEvents → session/update payloads: the EventMapper (eventMapper.ts) for the
// conversation and its tool calls, and beside it the controls — usage_update after every model
// response (usage.ts), the plan (plan.ts), and commands shown as terminals with their output
// streamed when the client asked for Zed's terminal extension (terminalOutput.ts).
import type { SessionUpdate, ToolCallContent } from "@agentclientprotocol/sdk";
import type { AgentEvent, EventSink } from "../core-types/events.ts";
import { planUpdate } from "./plan.ts";
import {
  isTerminalCall,
  type TerminalSink,
  TerminalStream,
  terminalContent,
  terminalExit,
  terminalInfo,
} from "./terminalOutput.ts";
import { EventMapper } from "./eventMapper.ts";
import { textContent } from "./toolCallContent.ts";
import type { KnownCall, KnownCalls } from "./sessionChannel.ts";
import { usageUpdate } from "./usage.ts";

/** What the client said it takes (initialize). */
export interface ClientFeatures {
  /** Zed's `_meta.terminal_output`. */
  terminalOutput: boolean;
  /** `session.notices`. */
  notices: boolean;
  /** `session.compaction`. */
  compaction: boolean;
}

/**
 * What the user should read beside the terminal when a command's result says more than its
 * output: a timeout or a cancel (the headline), and Garuda's hints ("[Garuda: …]").
 */
function resultNotes(output: string): string | undefined {
  const lines = output.split("\n");
  const headline = lines[0] ?? "";
  const notes = lines.filter((line) => line.startsWith("[Garuda:"));
  if (!/^Exit code: -?\d+$/.test(headline) && headline.startsWith("Exit code:")) notes.unshift(headline);
  return notes.length > 0 ? notes.join("\n") : undefined;
}

export class SessionMapper {
  readonly #base: EventMapper;
  /** The open terminal of each terminal call. */
  readonly #terminals = new Map<string, TerminalStream>();
  /** Terminal calls whose command started (tool_start): their card keeps the terminal at the end. */
  readonly #ran = new Set<string>();

  constructor(
    calls: KnownCalls,
    private readonly root: string,
    private readonly features: ClientFeatures,
    private readonly sink: TerminalSink,
  ) {
    this.#base = new EventMapper(calls, root, features.notices, features.compaction);
  }

  beginTurn(): void {
    this.#base.beginTurn();
  }

  notice(text: string, level: "info" | "warning" = "info"): SessionUpdate[] {
    return this.#base.notice(text, level);
  }

  map(event: AgentEvent): SessionUpdate[] {
    switch (event.type) {
      case "usage":
        return [usageUpdate(event)];
      case "plan":
        return [planUpdate(event.items)];
      case "tool_output":
        // Sent by the terminal's own batches (hold() says when the command must wait for them).
        return [];
      case "tool_call":
        return this.#toolCall(event);
      case "tool_start":
        if (this.#terminals.has(event.callId)) this.#ran.add(event.callId);
        return this.#base.map(event);
      case "tool_progress":
        // A terminal shows the output itself.
        return event.parentCallId === undefined && this.#terminals.has(event.callId) ? [] : this.#base.map(event);
      case "tool_result":
        return this.#result(event);
      default:
        return this.#base.map(event);
    }
  }

  #toolCall(event: Extract<AgentEvent, { type: "tool_call" }>): SessionUpdate[] {
    const updates = this.#base.map(event);
    if (!this.features.terminalOutput || event.parentCallId !== undefined || !isTerminalCall(event.tool, event.input))
      return updates;
    this.#terminals.set(event.callId, new TerminalStream(event.callId, this.sink));
    return updates.map((update) =>
      update.sessionUpdate === "tool_call" && update.toolCallId === event.callId
        ? {
            ...update,
            content: [terminalContent(event.callId)],
            _meta: { ...update._meta, ...terminalInfo(event.callId, this.root) },
          }
        : update,
    );
  }

  #result(event: Extract<AgentEvent, { type: "tool_result" }>): SessionUpdate[] {
    const terminal = event.parentCallId === undefined ? this.#terminals.get(event.callId) : undefined;
    if (!terminal) return this.#base.map(event);
    this.#terminals.delete(event.callId);
    const ran = this.#ran.delete(event.callId);
    const output = terminal.end();
    const notes = resultNotes(event.output);
    const last = this.#base.map(event).map((update): SessionUpdate => {
      if (update.sessionUpdate !== "tool_call_update" || update.toolCallId !== event.callId) return update;
      // A command that ran keeps its terminal; one that never started (denied) shows why instead.
      const content: ToolCallContent[] = ran
        ? [terminalContent(event.callId), ...(notes ? [textContent(notes)] : [])]
        : (update.content ?? []);
      return { ...update, content, _meta: { ...update._meta, ...terminalExit(event.callId, event.exit) } };
    });
    return [...output, ...last];
  }

  /**
   * Where a /compact's compaction events go: sent as entries when the client takes them, else nowhere (the command's
   * answer says it).
   */
  compactionSink(): EventSink | undefined {
    if (!this.features.compaction) return undefined;
    return (event) => {
      for (const update of this.map(event)) this.sink.send(update);
    };
  }

  /**
   * Feeds a command's output to its terminal. A promise when the editor is behind: the runtime
   * then holds the command's output until it settles (core-types/events.ts EventSink).
   */
  hold(event: AgentEvent): Promise<void> | undefined {
    if (event.type !== "tool_output" || event.parentCallId !== undefined) return undefined;
    return this.#terminals.get(event.callId)?.push(event.data);
  }

  /** Ends every open terminal (a stop): what they hold goes out, and no command waits on them. */
  endTerminals(): SessionUpdate[] {
    return [...this.#terminals.values()].flatMap((terminal) => terminal.end());
  }

  /** The editor's entry for a call that had no result by the end of the settle window; its terminal ends with it. */
  cancelled(call: KnownCall): SessionUpdate[] {
    const terminal = this.#terminals.get(call.id);
    if (!terminal) return [EventMapper.cancelled(call)];
    this.#terminals.delete(call.id);
    const content = this.#ran.delete(call.id)
      ? [terminalContent(call.id), textContent("Cancelled.")]
      : [textContent("Cancelled.")];
    return [
      ...terminal.end(),
      {
        sessionUpdate: "tool_call_update",
        toolCallId: call.id,
        status: "failed",
        content,
        _meta: terminalExit(call.id, undefined),
      },
    ];
  }
}
