// Where the Runtime's AgentEvents become session/update payloads, for one session (the
// channel that sends them: sessionChannel.ts; the content pieces: toolCallContent.ts).
import type { SessionUpdate, ToolCallStatus } from "@agentclientprotocol/sdk";
import type { AgentEvent } from "../core-types/events.ts";
import type { PromptBlock } from "../core-types/promptBlock.ts";
import { cutText } from "../text/cut.ts";
import { mapJson } from "../text/jsonShape.ts";
import { safeText, visible } from "../text/visible.ts";
import { serverToolResult, serverToolView, toolCallView } from "./toolCalls.ts";
import { retryNotice } from "../runtime/retryNotice.ts";
import { CODE, type OutputStyle, outputStyle, PROSE, styledText } from "./toolText.ts";
import { type NoticeLevel, noticeUpdate } from "./notices.ts";
import type { KnownCall, KnownCalls } from "./sessionChannel.ts";
import { diffContent, editorCallId, MAX_CONTENT_CHARS, textContent } from "./toolCallContent.ts";
import { compactionLine, compactionUpdates } from "./compaction.ts";
import { contentBlock } from "./promptBlocks.ts";
import { newMessageId } from "../store/messageIds.ts";

/** Room for the code fence and its language tag around output cut to fit MAX_CONTENT_CHARS. */
const STYLED_LIMIT = MAX_CONTENT_CHARS - 200;
/** Each string of a call's rawInput (editors show parts of it; the diff and the content carry the rest). */
export const MAX_RAW_INPUT_CHARS = 10_000;
/** How deep a rawInput is shown. */
const RAW_INPUT_DEPTH = 16;
/** A notice ("Garuda: …") longer than this is cut. */
const MAX_NOTICE_CHARS = 20_000;

/**
 * The call's input for display (editors show parts of rawInput): every string cut and made visible, the nesting
 * bounded.
 */
function displayInput(input: unknown): unknown {
  return mapJson(input, (text) => visible(cutText(text, MAX_RAW_INPUT_CHARS)), RAW_INPUT_DEPTH);
}

/**
 * The model's text as the editor shows it: laid out as written, no control or reordering
 * character; `messageId` groups the chunks of one message (store/messageIds.ts).
 */
const message = (text: string, messageId: string): SessionUpdate => ({
  sessionUpdate: "agent_message_chunk",
  content: { type: "text", text: safeText(cutText(text, MAX_CONTENT_CHARS)) },
  messageId,
});

/** Garuda's own answer (a built-in command's): a message of its own, never part of the conversation, so a new id. */
export const replyMessage = (text: string): SessionUpdate => message(text, newMessageId());

/** AgentEvents → session/update payloads, for one session. */
export class EventMapper {
  /** Whether the message so far ends a line, so a "Garuda:" line starts on its own. */
  #atLineStart = true;
  /** The last message chunk sent: its kind and id (an event without an id goes on with it). */
  #last: { kind: string; id: string } | undefined;

  constructor(
    private readonly calls: KnownCalls,
    private readonly root: string,
    /** The client advertised `session.notices`: Garuda's lines go as ACP notices (notices.ts). */
    private readonly notices = false,
    /** The client advertised `session.compaction`: compactions go as compaction_update entries (compaction.ts). */
    private readonly compaction = false,
  ) {}

  /** A new prompt: the editor starts a new message. */
  beginTurn(): void {
    this.#atLineStart = true;
  }

  /** A line from Garuda: an ACP notice when the client takes them, else "Garuda: …" on a paragraph of its own. */
  notice(text: string, level: NoticeLevel = "info"): SessionUpdate[] {
    if (this.notices) return [noticeUpdate(text, level)];
    // A message of its own (not the model's), shown once: a new id, and a replay makes another.
    const id = newMessageId();
    const updates: SessionUpdate[] = [];
    if (!this.#atLineStart) updates.push(message("\n\n", id));
    updates.push(message(`Garuda: ${visible(cutText(text, MAX_NOTICE_CHARS))}\n\n`, id));
    this.#atLineStart = true;
    this.#last = undefined;
    return updates;
  }

  /**
   * The id of the next chunk of `kind`: the event's own, else the last chunk's when it was of this kind, else a new
   * one.
   */
  #messageId(kind: string, given: string | undefined): string {
    const last = this.#last;
    if (last?.kind === kind && (given === undefined || given === last.id)) return last.id;
    const id = given ?? newMessageId();
    this.#last = { kind, id };
    return id;
  }

  map(event: AgentEvent): SessionUpdate[] {
    switch (event.type) {
      case "text_delta":
        if (event.text === "") return [];
        this.#atLineStart = event.text.endsWith("\n");
        return [message(event.text, this.#messageId("text", event.messageId))];
      case "thinking_delta":
        return event.text === ""
          ? []
          : [
              {
                sessionUpdate: "agent_thought_chunk",
                content: { type: "text", text: safeText(cutText(event.text, MAX_CONTENT_CHARS)) },
                messageId: this.#messageId("thinking", event.messageId),
              },
            ];
      case "tool_call":
        return this.#toolCall(event);
      case "tool_start":
        return this.#start(event);
      case "tool_progress":
        return this.#progress(event);
      case "tool_result":
        return this.#result(event);
      case "server_tool":
        return this.#serverTool(event);
      case "notice":
        return this.notice(event.text, event.level);
      case "compaction":
        if (this.compaction) return compactionUpdates(event);
        return this.notice(compactionLine(event.beforeTokens, event.afterTokens));
      case "compaction_started":
      case "compaction_failed":
        // Without the entries the client sees the line when a compaction ends; a failure is the turn's error or the
        // command's answer.
        return this.compaction ? compactionUpdates(event) : [];
      case "model_retry":
        return this.notice(retryNotice(event, event.delayMs > 0 ? `in ${seconds(event.delayMs)}` : ""), "warning");
      case "step_end":
      // Sent by the controls' mappers (usage.ts, plan.ts, terminalOutput.ts), not here.
      case "usage":
      case "plan":
      case "tool_output":
      // A child session's own updates (subagentUpdates.ts), when the client takes them.
      case "subagent":
        return [];
      case "title":
        return [{ sessionUpdate: "session_info_update", title: event.title }];
      case "steering":
        // Shown where the model got it, as the user sent it (as a replay shows it).
        this.#atLineStart = true;
        return this.userMessage(event.shown ?? [{ type: "text" as const, text: event.text }], event.messageId);
    }
  }

  /** A user message (a replayed prompt, a steering message): one chunk per block as the user sent it, one id. */
  userMessage(blocks: readonly PromptBlock[], messageId: string | undefined): SessionUpdate[] {
    const id = this.#messageId("user", messageId);
    this.#last = undefined;
    return blocks.map((block) => ({
      sessionUpdate: "user_message_chunk" as const,
      content: contentBlock(block),
      messageId: id,
    }));
  }

  #toolCall(event: Extract<AgentEvent, { type: "tool_call" }>): SessionUpdate[] {
    // A call inside a subagent is not shown as a call of its own: the subagent's card shows it
    // through the progress the child reports on the subagent's own call.
    if (event.parentCallId !== undefined) return [];
    const view = toolCallView(event.tool, event.info, this.root);
    const diff = event.info.change ? diffContent(event.info.change) : undefined;
    this.calls.add({
      id: event.callId,
      title: view.title,
      kind: view.kind,
      output: outputStyle(event.tool, view.kind, event.info),
      ...(diff && { diff }),
    });
    return [
      {
        sessionUpdate: "tool_call",
        toolCallId: editorCallId(event.callId),
        title: view.title,
        kind: view.kind,
        status: "pending",
        locations: view.locations,
        rawInput: displayInput(event.input),
        ...(diff && { content: [diff] }),
      },
    ];
  }

  /** The call runs now (allowed, with or without a question): the editor stops showing it as waiting. */
  #start(event: Extract<AgentEvent, { type: "tool_start" }>): SessionUpdate[] {
    if (event.parentCallId !== undefined) return [];
    const call = this.calls.open(event.callId);
    if (!call || this.calls.stopped) return [];
    call.running = true;
    return [{ sessionUpdate: "tool_call_update", toolCallId: editorCallId(call.id), status: "in_progress" }];
  }

  /** The latest lines of a running call (a command's output, a subagent's current call): as code. */
  #progress(event: Extract<AgentEvent, { type: "tool_progress" }>): SessionUpdate[] {
    if (event.parentCallId !== undefined) return [];
    const call = this.calls.open(event.callId);
    if (!call || this.calls.stopped) return [];
    return [
      {
        sessionUpdate: "tool_call_update",
        toolCallId: editorCallId(call.id),
        status: "in_progress",
        content: [textContent(styledText(event.text, CODE, STYLED_LIMIT))],
      },
    ];
  }

  #result(event: Extract<AgentEvent, { type: "tool_result" }>): SessionUpdate[] {
    if (event.parentCallId !== undefined) return [];
    const afterStop = this.calls.endedByStop(event.callId);
    const call = this.calls.finish(event.callId);
    if (!call) return [];
    // A call the stop ended is failed, even when its command still returned a result.
    const status: ToolCallStatus = event.status === "completed" && !afterStop ? "completed" : "failed";
    const text = textContent(styledText(event.output, resultStyle(event.status, call.output), STYLED_LIMIT));
    return [
      {
        sessionUpdate: "tool_call_update",
        toolCallId: editorCallId(call.id),
        status,
        content: status === "completed" && call.diff ? [call.diff, text] : [text],
      },
    ];
  }

  #serverTool(event: Extract<AgentEvent, { type: "server_tool" }>): SessionUpdate[] {
    if (event.status === "started") {
      const view = serverToolView(event.info);
      this.calls.add({ id: event.callId, title: view.title, kind: view.kind, server: true });
      return [
        {
          sessionUpdate: "tool_call",
          toolCallId: editorCallId(event.callId),
          title: view.title,
          kind: view.kind,
          status: "in_progress",
          locations: [],
          rawInput: displayInput(event.input),
        },
      ];
    }
    const call = this.calls.finish(event.callId);
    if (!call) return [];
    return [
      {
        sessionUpdate: "tool_call_update",
        toolCallId: editorCallId(call.id),
        status: "completed",
        content: [textContent(visible(serverToolResult(event.summary, event.result)))],
      },
    ];
  }

  /** The editor's entry for a call that had no result by the end of the settle window. */
  static cancelled(call: KnownCall): SessionUpdate {
    return {
      sessionUpdate: "tool_call_update",
      toolCallId: editorCallId(call.id),
      status: "failed",
      content: [textContent("Cancelled.")],
    };
  }
}

/**
 * A denial is Garuda's reason, in words; anything else is what the tool returned, as code (the
 * file's language only when it was read: an error is not the file).
 */
function resultStyle(
  status: Extract<AgentEvent, { type: "tool_result" }>["status"],
  style: OutputStyle = CODE,
): OutputStyle {
  if (status === "denied" || style.prose) return PROSE;
  return status === "completed" ? style : CODE;
}

function seconds(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(ms % 1000 === 0 ? 0 : 1)} s` : `${ms} ms`;
}
