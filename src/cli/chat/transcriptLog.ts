// The conversation as it happened, for the transcript view (Ctrl-O, pager.ts): each prompt, the
// answer as the model wrote it, the thinking the screen shows collapsed, every call with its whole
// output (the screen shows a command's last lines only) and Garuda's own lines. It keeps the most
// recent MAX_CHARS characters: a session of many long outputs does not grow without end.
import { safeText } from "../../text/visible.ts";
import type { Style } from "./style.ts";

/** What the view keeps, from the end (about 2 MB of text). */
const MAX_CHARS = 2_000_000;

type EntryKind = "prompt" | "answer" | "thinking" | "call" | "output" | "note";

interface Entry {
  kind: EntryKind;
  text: string;
}

export class TranscriptLog {
  readonly #entries: Entry[] = [];
  #chars = 0;
  /** Entries dropped from the start to stay within MAX_CHARS. */
  #dropped = 0;

  prompt(text: string): void {
    this.#add("prompt", text);
  }

  /** A chunk of the answer: chunks in a row make one entry. */
  answer(text: string): void {
    this.#add("answer", text, true);
  }

  thinking(text: string): void {
    this.#add("thinking", text, true);
  }

  /** A call's line, as the screen shows it ("$ npm test", "Read a.txt"). */
  call(title: string): void {
    this.#add("call", title);
  }

  /** A call's whole result (what the model read), under its call's line: named again when other lines came between. */
  output(title: string, text: string): void {
    if (text.trim() === "") return;
    const last = this.#entries.at(-1);
    if (last?.kind !== "call" || last.text !== title) this.#add("call", title);
    this.#add("output", text);
  }

  note(text: string): void {
    this.#add("note", text);
  }

  /** The transcript as lines for the view, styled, each a line of the text (not yet fitted to the window). */
  lines(style: Style): string[] {
    const lines: string[] = [];
    if (this.#dropped > 0) lines.push(style.dim(`… ${this.#dropped} earlier entries are no longer kept`), "");
    let previous: EntryKind | undefined;
    for (const entry of this.#entries) {
      const text = safeText(entry.text).replace(/\r\n?/g, "\n").replace(/\n+$/, "");
      const rows = text.split("\n");
      // A blank line before each prompt, answer and thinking, and before a call that follows text.
      const afterText = previous === "answer" || previous === "thinking";
      const opens = entry.kind === "prompt" || entry.kind === "answer" || entry.kind === "thinking";
      if (previous !== undefined && (opens || (entry.kind === "call" && afterText))) lines.push("");
      switch (entry.kind) {
        case "prompt":
          lines.push(...rows.map((row, i) => style.bold(`${i === 0 ? "› " : "  "}${row}`)));
          break;
        case "answer":
          lines.push(...rows);
          break;
        case "thinking":
          lines.push(style.dim("✻ Thinking"), ...rows.map((row) => style.dim(style.italic(row))));
          break;
        case "call":
          lines.push(`${style.cyan("●")} ${style.bold(rows.join(" "))}`);
          break;
        case "output":
          lines.push(...rows.map((row) => style.dim(`  │ ${row}`)));
          break;
        case "note":
          lines.push(...rows);
          break;
      }
      previous = entry.kind;
    }
    return lines;
  }

  #add(kind: EntryKind, text: string, join = false): void {
    if (text === "") return;
    const last = this.#entries.at(-1);
    if (join && last?.kind === kind) last.text += text;
    else this.#entries.push({ kind, text });
    this.#chars += text.length;
    while (this.#chars > MAX_CHARS && this.#entries.length > 1) {
      this.#chars -= (this.#entries.shift() as Entry).text.length;
      this.#dropped++;
    }
  }
}
