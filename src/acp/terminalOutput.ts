// Zed's terminal extension for commands Garuda runs itself: when the editor's initialize says
// `clientCapabilities._meta.terminal_output: true`, a bash call (and a process_manager start) is
// shown as a terminal: its tool_call carries `content: [{type: "terminal", terminalId}]` and
// `_meta.terminal_info`, its output streams as `_meta.terminal_output {terminal_id, data}` in
// tool_call_updates while it runs, and it ends with `_meta.terminal_exit {terminal_id, exit_code,
// signal}` beside the final status. The editor only draws it: Garuda's sandbox runs the command.
//
// Output goes out in batches, at most one update per BATCH_MS (the first chunk at once), and never
// more than one update waiting to be written: a slow editor gets bigger batches, not a queue of
// messages. Nothing is dropped. What the command printed is cleaned the way the terminal chat
// shows it: escape sequences (colours, cursor moves, titles, clipboard and hyperlink requests)
// are removed, and every other hidden character is made visible as ⟨U+XXXX⟩; newlines, tabs and
// carriage returns stay, as a terminal draws them.
import type { SessionUpdate, ToolCallContent } from "@agentclientprotocol/sdk";
import type { CommandExit } from "../runtime/events.ts";
import { visibleTerminal } from "../text/visible.ts";

/** At most one terminal_output update per this many milliseconds (about 20 a second). */
export const BATCH_MS = 50;
/** The most output characters one update carries; a larger backlog goes out in several, back to back. */
export const MAX_UPDATE_CHARS = 1 << 20;
/** An unfinished escape sequence longer than this is not one: its ESC is shown. */
const MAX_ESCAPE_CHARS = 4096;

// Complete sequences: CSI (colours, cursor moves), OSC (titles, clipboard, hyperlinks; ended by BEL
// or ST), DCS/SOS/PM/APC strings (ended by ST), character-set and other nF escapes (ESC ( B), and
// two-character escapes.
const ESCAPES = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[PX^_][^\u001b]*\u001b\\|\u001b[ -/]+[0-~]|\u001b[0-~]/g;
/** The start of a sequence a later chunk may complete… */
const UNFINISHED = /^\u001b(?:\[[0-?]*[ -/]*|\][^\u0007\u001b]*|[PX^_][^\u001b]*|[ -/]+)?$/;
/** …including a string whose ST (ESC \) is cut after its ESC. */
const UNFINISHED_ST = /^\u001b(?:\][^\u0007\u001b]*|[PX^_][^\u001b]*)\u001b$/;

/** Whether the client asked for terminal output (Zed: `_meta.terminal_output: true`). */
export function wantsTerminalOutput(capabilities: { _meta?: Record<string, unknown> | null } | null | undefined): boolean {
  return capabilities?._meta?.terminal_output === true;
}

/** Whether a call is shown as a terminal: bash, and process_manager's start. */
export function isTerminalCall(tool: string, input: unknown): boolean {
  if (tool === "bash") return true;
  return tool === "process_manager" && typeof input === "object" && input !== null && (input as { action?: unknown }).action === "start";
}

/** Where an escape sequence a later chunk may complete starts, at the end of `text`; undefined when none does. */
function heldFrom(text: string): number | undefined {
  const last = text.lastIndexOf("\u001b");
  if (last === -1 || text.length - last > MAX_ESCAPE_CHARS) return undefined;
  const before = last > 0 ? text.lastIndexOf("\u001b", last - 1) : -1;
  if (before !== -1 && text.length - before <= MAX_ESCAPE_CHARS && UNFINISHED_ST.test(text.slice(before))) return before;
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

/** Cuts `text` at `max` characters, never between the two halves of a surrogate pair. */
function cut(text: string, max: number): [string, string] {
  if (text.length <= max) return [text, ""];
  let end = max;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return [text.slice(0, end), text.slice(end)];
}

export interface TerminalSink {
  /** Sends an update now (in order with every other update of the session). */
  send(update: SessionUpdate): void;
  /** Resolves when every update sent so far is written. */
  written(): Promise<void>;
  now?: () => number;
}

/** The output of one terminal call on its way to the editor. */
export class TerminalStream {
  readonly #text = new TerminalText();
  #pending = "";
  #last = Number.NEGATIVE_INFINITY;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #inFlight = false;
  #ended = false;
  /** Characters sent, for tests and the bench. */
  sentChars = 0;

  constructor(
    readonly terminalId: string,
    private readonly sink: TerminalSink,
  ) {}

  push(chunk: string): void {
    if (this.#ended) return;
    this.#pending += this.#text.push(chunk);
    this.#schedule();
  }

  #now(): number {
    return this.sink.now?.() ?? performance.now();
  }

  #schedule(): void {
    if (this.#ended || this.#timer || this.#inFlight || this.#pending === "") return;
    // A backlog of a full update goes at once; a trickle waits for the batch interval.
    const wait = this.#pending.length >= MAX_UPDATE_CHARS ? 0 : this.#last + BATCH_MS - this.#now();
    if (wait <= 0) this.#sendOne();
    else this.#timer = setTimeout(() => this.#sendOne(), wait);
  }

  #sendOne(): void {
    this.#timer = undefined;
    if (this.#ended || this.#pending === "") return;
    const [data, rest] = cut(this.#pending, MAX_UPDATE_CHARS);
    this.#pending = rest;
    this.#last = this.#now();
    this.sentChars += data.length;
    this.sink.send(outputUpdate(this.terminalId, data));
    this.#inFlight = true;
    void this.sink.written().then(() => {
      this.#inFlight = false;
      this.#schedule();
    });
  }

  /**
   * The command ended (or the turn did): what is left goes out now, in order before the call's
   * last update, and nothing after it.
   */
  end(): SessionUpdate[] {
    if (this.#ended) return [];
    this.#ended = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    let rest = this.#pending + this.#text.end();
    this.#pending = "";
    const updates: SessionUpdate[] = [];
    while (rest !== "") {
      const [data, more] = cut(rest, MAX_UPDATE_CHARS);
      this.sentChars += data.length;
      updates.push(outputUpdate(this.terminalId, data));
      rest = more;
    }
    return updates;
  }
}
