// Ctrl-R in the prompt: a search backwards through the history, as in readline. What is typed
// narrows the search (the newest prompt that contains it, case-insensitive); Ctrl-R again goes to
// the next older match; Enter, or a movement key, takes the match into the prompt to edit or send;
// Escape or Ctrl-G leaves with the prompt as it was. Pure: the editor draws `prompt` and `match`.
import type { HistoryEntry } from "../../store/promptHistory.ts";
import type { Key } from "../keys.ts";

export type SearchStep =
  | { kind: "searching" }
  | { kind: "accept"; entry: HistoryEntry | undefined; then?: Key }
  | { kind: "cancel" };

/** Keys that take the match and are then applied to it (a movement); Enter, Tab, Up and Down only take it. */
const MOVING = new Set(["left", "right", "home", "end", "word-left", "word-right"]);
const TAKING = new Set(["enter", "tab", "up", "down"]);

export class HistorySearch {
  #query = "";
  /** Index into the history of the match shown; undefined: none. */
  #at: number | undefined;
  #failed = false;

  constructor(private readonly history: readonly HistoryEntry[]) {
    this.#at = this.#find(history.length - 1);
  }

  get query(): string {
    return this.#query;
  }

  /** The prompt shown, with the entry found (or what was found last, when nothing matches any more). */
  get match(): HistoryEntry | undefined {
    return this.#at === undefined ? undefined : this.history[this.#at];
  }

  get label(): string {
    return `(${this.#failed ? "failing " : ""}reverse-i-search)'${this.#query}': `;
  }

  apply(key: Key): SearchStep {
    if (key.name === "char" || key.name === "paste") {
      this.#query += key.name === "char" ? key.char : key.text.replace(/\n/g, " ");
      this.#search(this.#at ?? this.history.length - 1);
      return { kind: "searching" };
    }
    if (key.name === "backspace") {
      this.#query = [...this.#query].slice(0, -1).join("");
      this.#search(this.history.length - 1);
      return { kind: "searching" };
    }
    if (key.name === "history-search") {
      if (this.#at !== undefined) this.#search(this.#at - 1);
      return { kind: "searching" };
    }
    if (key.name === "escape" || key.name === "cancel" || key.name === "interrupt") return { kind: "cancel" };
    if (MOVING.has(key.name)) return { kind: "accept", entry: this.match, then: key };
    if (TAKING.has(key.name)) return { kind: "accept", entry: this.match };
    return { kind: "searching" };
  }

  /** Looks from `from` back; a search that finds nothing keeps the last match shown, as readline does. */
  #search(from: number): void {
    const found = this.#find(from);
    this.#failed = found === undefined && this.#query !== "";
    if (found !== undefined) this.#at = found;
  }

  #find(from: number): number | undefined {
    const query = this.#query.toLowerCase();
    for (let i = Math.min(from, this.history.length - 1); i >= 0; i--) {
      if ((this.history[i] as HistoryEntry).text.toLowerCase().includes(query)) return i;
    }
    return undefined;
  }
}
