// Zed's terminal extension for commands Garuda runs itself: when the editor's initialize says
// `clientCapabilities._meta.terminal_output: true`, a bash call (and a process_manager start) is
// shown as a terminal: its tool_call carries `content: [{type: "terminal", terminalId}]` and
// `_meta.terminal_info`, its output streams as `_meta.terminal_output {terminal_id, data}` in
// tool_call_updates while it runs, and it ends with `_meta.terminal_exit {terminal_id, exit_code,
// signal}` beside the final status. The editor only draws it: Garuda's sandbox runs the command.
//
// Output goes out in batches, at most one update per BATCH_MS (the first chunk at once), and never
// more than one update waiting to be written: a slow editor gets bigger batches, not a queue of
// messages, and past a high-water mark the command's output is held until the editor catches up.
// Nothing is dropped. What the command printed is cleaned the way the terminal chat
// shows it: escape sequences (colours, cursor moves, titles, clipboard and hyperlink requests)
// are removed, and every other hidden character is made visible as ⟨U+XXXX⟩; newlines, tabs and
// carriage returns stay, as a terminal draws them.
import type { SessionUpdate, ToolCallContent } from "@agentclientprotocol/sdk";
import type { CommandExit } from "../core-types/events.ts";
import { visibleTerminal } from "../text/visible.ts";

/** At most one terminal_output update per this many milliseconds (about 20 a second). */
export const BATCH_MS = 50;
/** The most output characters one update carries; a larger backlog goes out in several, back to back. */
export const MAX_UPDATE_CHARS = 1 << 20;
/** This much waiting is a backlog, not a trickle: it goes without waiting for the batch interval. */
const BULK_CHARS = 256 * 1024;
/** Past this many characters waiting to be sent, the command's output is held (TerminalStream.push). */
export const HIGH_WATER_CHARS = MAX_UPDATE_CHARS;
/** An unfinished escape sequence longer than this is not one: its ESC is shown. */
const MAX_ESCAPE_CHARS = 4096;

// Complete sequences: CSI (colours, cursor moves), OSC (titles, clipboard, hyperlinks; ended by BEL
// or ST), DCS/SOS/PM/APC strings (ended by ST), character-set and other nF escapes (ESC ( B), and
// two-character escapes.
const ESCAPES = new RegExp(
  [
    String.raw`\u001b\[[0-?]*[ -/]*[@-~]`,
    String.raw`\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)`,
    String.raw`\u001b[PX^_][^\u001b]*\u001b\\`,
    String.raw`\u001b[ -/]+[0-~]`,
    String.raw`\u001b[0-~]`,
  ].join("|"),
  "g",
);
/** The start of a sequence a later chunk may complete… */
const UNFINISHED = /^\u001b(?:\[[0-?]*[ -/]*|\][^\u0007\u001b]*|[PX^_][^\u001b]*|[ -/]+)?$/;
/** …including a string whose ST (ESC \) is cut after its ESC. */
const UNFINISHED_ST = /^\u001b(?:\][^\u0007\u001b]*|[PX^_][^\u001b]*)\u001b$/;

/** Whether the client asked for terminal output (Zed: `_meta.terminal_output: true`). */
export function wantsTerminalOutput(
  capabilities: { _meta?: Record<string, unknown> | null } | null | undefined,
): boolean {
  return capabilities?._meta?.terminal_output === true;
}

/** Whether a call is shown as a terminal: bash, and process_manager's start. */
export function isTerminalCall(tool: string, input: unknown): boolean {
  if (tool === "bash") return true;
  return (
    tool === "process_manager" &&
    typeof input === "object" &&
    input !== null &&
    (input as { action?: unknown }).action === "start"
  );
}

/** Where an escape sequence a later chunk may complete starts, at the end of `text`; undefined when none does. */
function heldFrom(text: string): number | undefined {
  const last = text.lastIndexOf("\u001b");
  if (last === -1 || text.length - last > MAX_ESCAPE_CHARS) return undefined;
  const before = last > 0 ? text.lastIndexOf("\u001b", last - 1) : -1;
  if (before !== -1 && text.length - before <= MAX_ESCAPE_CHARS && UNFINISHED_ST.test(text.slice(before)))
    return before;
  return UNFINISHED.test(text.slice(last)) ? last : undefined;
}

/**
 * Cleans a stream of output for display, chunk by chunk: an escape sequence cut between two
 * chunks is held until its end arrives, so it is removed whole.
 */
export class TerminalText {
  #carry = "";

  push(chunk: string): string {
    let text = this.#carry + chunk;
    this.#carry = "";
    const held = heldFrom(text);
    if (held !== undefined) {
      this.#carry = text.slice(held);
      text = text.slice(0, held);
    }
    return visibleTerminal(text.includes("\u001b") ? text.replace(ESCAPES, "") : text);
  }

  /** What is held at the end of the output: an unfinished sequence, shown as the characters it is. */
  end(): string {
    const rest = this.#carry;
    this.#carry = "";
    return rest === "" ? "" : visibleTerminal(rest);
  }
}

export function terminalContent(terminalId: string): ToolCallContent {
  return { type: "terminal", terminalId };
}

/** The _meta of a terminal call's first tool_call. */
export function terminalInfo(terminalId: string, cwd: string): Record<string, unknown> {
  return { terminal_info: { terminal_id: terminalId, cwd } };
}

/** The _meta of its last tool_call_update. */
export function terminalExit(terminalId: string, exit: CommandExit | undefined): Record<string, unknown> {
  return { terminal_exit: { terminal_id: terminalId, exit_code: exit?.code ?? null, signal: exit?.signal ?? null } };
}

const outputUpdate = (terminalId: string, data: string): SessionUpdate => ({
  sessionUpdate: "tool_call_update",
  toolCallId: terminalId,
  _meta: { terminal_output: { terminal_id: terminalId, data } },
});

/** Where to cut `text` at most `max` characters in, never between the two halves of a surrogate pair. */
function cutAt(text: string, max: number): number {
  if (text.length <= max) return text.length;
  const code = text.charCodeAt(max - 1);
  return code >= 0xd800 && code <= 0xdbff ? max - 1 : max;
}

export interface TerminalSink {
  /** Sends an update now (in order with every other update of the session). */
  send(update: SessionUpdate): void;
  /** Resolves when every update sent so far is written. */
  written(): Promise<void>;
  now?: () => number;
}

/**
 * The output of one terminal call on its way to the editor. The cleaned text waits in a queue of
 * chunks (never one growing string: taking an update from it copies only what the update holds).
 * Past HIGH_WATER_CHARS waiting, push() answers a promise that settles once the queue is below it
 * again: the tool holds the command's output meanwhile, so a slow editor costs time, not memory.
 */
export class TerminalStream {
  readonly #text = new TerminalText();
  readonly #queue: string[] = [];
  #queued = 0;
  #last = Number.NEGATIVE_INFINITY;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #inFlight = false;
  #ended = false;
  #drained: (() => void)[] = [];
  /** Characters sent, for tests and the bench. */
  sentChars = 0;

  constructor(
    readonly terminalId: string,
    private readonly sink: TerminalSink,
  ) {}

  /** Queues a chunk; a promise when the queue is full (wait for it before pushing more). */
  push(chunk: string): Promise<void> | undefined {
    if (this.#ended) return undefined;
    const text = this.#text.push(chunk);
    if (text !== "") {
      this.#queue.push(text);
      this.#queued += text.length;
    }
    this.#schedule();
    if (this.#queued <= HIGH_WATER_CHARS) return undefined;
    return new Promise((resolve) => this.#drained.push(resolve));
  }

  #now(): number {
    return this.sink.now?.() ?? performance.now();
  }

  #schedule(): void {
    if (this.#ended || this.#inFlight || this.#queued === 0) return;
    // A backlog goes at once (the editor's reading paces it: one update in flight); a trickle waits
    // for the batch interval.
    const wait = this.#queued >= BULK_CHARS ? 0 : this.#last + BATCH_MS - this.#now();
    if (wait > 0) {
      this.#timer ??= setTimeout(() => this.#sendOne(), wait);
      return;
    }
    if (this.#timer) clearTimeout(this.#timer);
    this.#sendOne();
  }

  /** Takes up to `max` characters off the front of the queue. */
  #take(max: number): string {
    const parts: string[] = [];
    let taken = 0;
    while (this.#queue.length > 0 && taken < max) {
      const head = this.#queue[0] as string;
      const room = max - taken;
      if (head.length <= room) {
        parts.push(head);
        taken += head.length;
        this.#queue.shift();
        continue;
      }
      // Never half a surrogate pair: an update that would end in one ends before it (or, empty, takes the pair).
      const cut = cutAt(head, room) || (taken === 0 ? Math.min(2, head.length) : 0);
      if (cut === 0) break;
      parts.push(head.slice(0, cut));
      this.#queue[0] = head.slice(cut);
      taken += cut;
    }
    this.#queued -= taken;
    return parts.length === 1 ? (parts[0] as string) : parts.join("");
  }

  #release(): void {
    if (this.#queued > HIGH_WATER_CHARS && !this.#ended) return;
    const waiting = this.#drained;
    this.#drained = [];
    for (const resolve of waiting) resolve();
  }

  #sendOne(): void {
    this.#timer = undefined;
    if (this.#ended || this.#queued === 0) return;
    const data = this.#take(MAX_UPDATE_CHARS);
    this.#last = this.#now();
    this.sentChars += data.length;
    this.sink.send(outputUpdate(this.terminalId, data));
    this.#release();
    this.#inFlight = true;
    void this.sink.written().then(() => {
      this.#inFlight = false;
      this.#release();
      this.#schedule();
    });
  }

  /**
   * The command ended (or the turn did): what is left goes out now, in order before the call's
   * last update, and nothing after it. Every wait of push() ends.
   */
  end(): SessionUpdate[] {
    if (this.#ended) return [];
    this.#ended = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    const rest = this.#text.end();
    if (rest !== "") {
      this.#queue.push(rest);
      this.#queued += rest.length;
    }
    const updates: SessionUpdate[] = [];
    while (this.#queued > 0) {
      const data = this.#take(MAX_UPDATE_CHARS);
      this.sentChars += data.length;
      updates.push(outputUpdate(this.terminalId, data));
    }
    this.#release();
    return updates;
  }
}
