// The conversation of one Runtime: the messages sent to the model, changed only through
// records (applyRecord), each written to the session file as it is applied. Keeps a running
// size in characters for the context estimate.
import type { Message, ToolUseBlock } from "../model/types.ts";
import type { SessionJournal } from "../store/sessionFile.ts";
import {
  type RecordInput,
  type RecordedResult,
  type SessionRecord,
  applyRecord,
  keptChange,
} from "../store/sessionRecords.ts";
import type { CallInfo } from "../core-types/callInfo.ts";
import { CANCELLED_OUTPUT } from "../tools/registry.ts";

const messageChars = (message: Message) => JSON.stringify(message.content).length;

export class Conversation {
  readonly messages: Message[];
  #journal: SessionJournal | undefined;
  #chars: number;
  /** Index of the message that holds the current turn's prompt, and the prompt. */
  #prompt: { index: number; text: string } | undefined;

  constructor(messages: Message[] = []) {
    this.messages = messages;
    this.#chars = this.#count();
  }

  get journal(): SessionJournal | undefined {
    return this.#journal;
  }

  attach(journal: SessionJournal): void {
    this.#journal = journal;
  }

  /** Size of all messages in characters of JSON (an estimate of what is sent). */
  get chars(): number {
    return this.#chars;
  }

  get prompt(): { index: number; text: string } | undefined {
    return this.#prompt;
  }

  /** Applies a record to the messages and writes it to the session file. */
  record(input: RecordInput): void {
    const record = { t: "", ...input } as SessionRecord;
    const before = this.messages.length;
    applyRecord(this.messages, record);
    // A steering message is part of the running turn, not the prompt that began it.
    if (record.type === "user" && !record.synthetic && !record.steering) {
      // The prompt joins the previous user message when that one holds tool results.
      this.#prompt = {
        index: this.messages.length > before ? this.messages.length - 1 : Math.max(0, before - 1),
        text: record.prompt,
      };
    }
    if (record.type === "compaction") {
      this.#chars = this.#count();
      if (this.#prompt && record.keptFrom !== undefined) {
        const index = this.#prompt.index - record.keptFrom + 1;
        this.#prompt = { ...this.#prompt, index: Math.max(0, index) };
      }
    } else if (record.type === "user" || record.type === "assistant" || record.type === "tool_results") {
      // Merging into the last message adds its blocks; recount only that message.
      const grew = this.messages.length > before;
      const last = this.messages.at(-1);
      if (last) this.#chars = grew ? this.#chars + messageChars(last) : this.#count();
    }
    this.#journal?.append(input);
  }

  /**
   * The whole conversation replaced (a rewind read it back from the session file); the file is written by the caller's
   * record.
   */
  replaceMessages(messages: readonly Message[]): void {
    this.messages.length = 0;
    this.messages.push(...messages);
    this.#prompt = undefined;
    this.#chars = this.#count();
  }

  /** tool_use blocks of the last assistant message that have no result yet. */
  openToolCalls(): ToolUseBlock[] {
    const index = this.messages.findLastIndex((message) => message.role === "assistant");
    const assistant = this.messages[index];
    if (assistant?.role !== "assistant") return [];
    const next = this.messages[index + 1];
    const answered = new Set(
      next?.role === "user"
        ? next.content.flatMap((block) => (block.type === "tool_result" ? [block.toolUseId] : []))
        : [],
    );
    return assistant.content.filter(
      (block): block is ToolUseBlock => block.type === "tool_use" && !answered.has(block.id),
    );
  }

  /**
   * Gives every open tool call a result so the next request is valid: the known result when
   * there is one, else a synthetic "Cancelled by the user." Returns how many were closed.
   */
  closeOpenToolCalls(
    known: ReadonlyMap<string, RecordedResult> = new Map(),
    described: ReadonlyMap<string, CallInfo> = new Map(),
  ): number {
    const open = this.openToolCalls();
    if (open.length === 0) return 0;
    const results = open.map((call): RecordedResult => {
      const found = known.get(call.id);
      if (found) return found;
      // The title, kind and locations it was shown with, for a replay (the change only when small).
      const shown = described.get(call.id);
      const { change, ...info } = shown ?? { title: call.name, kind: "other" as const, locations: [] };
      const kept = change && keptChange(change);
      return {
        callId: call.id,
        tool: call.name,
        content: CANCELLED_OUTPUT,
        isError: true,
        status: "failed",
        synthetic: true,
        ...(shown && { info }),
        ...(kept && { change: kept }),
      };
    });
    this.record({ type: "tool_results", results });
    return open.length;
  }

  #count(): number {
    let total = 0;
    for (const message of this.messages) total += messageChars(message);
    return total;
  }
}
