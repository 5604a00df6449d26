// The menu that opens as you type: "/" at the start of the prompt lists the commands with what
// they do, "@" anywhere the project's files (completionSource.ts menu()), filtered by the word
// typed after it. The editor (promptEditor.ts) moves it with the arrows, picks with Enter or
// Tab and closes it with Esc; it is drawn under the prompt, in the rows PromptView keeps there.
import { type Candidate, type CompletionTarget, completionTarget, menuLines } from "./completion.ts";
import type { CompletionSource } from "./completionSource.ts";

/** The candidates shown at once; the arrows scroll through the rest. */
export const MENU_ROWS = 6;

export class CompletionMenu {
  #target: CompletionTarget | undefined;
  #items: Candidate[] = [];
  #selected = 0;
  /** The target the user closed with Esc: it stays closed while that "/" or "@" word is typed. */
  #closed: Pick<CompletionTarget, "kind" | "start"> | undefined;

  constructor(
    private readonly source: CompletionSource & Required<Pick<CompletionSource, "menu">>,
    /** Styles the selected row (a colour); the "❯" marks it without one. */
    private readonly mark: (line: string) => string = (line) => line,
  ) {}

  /** The menu is on screen: the arrows, Enter, Tab and Esc are its keys. */
  get open(): boolean {
    return this.#target !== undefined;
  }

  get target(): CompletionTarget | undefined {
    return this.#target;
  }

  get items(): readonly Candidate[] {
    return this.#items;
  }

  get selected(): Candidate | undefined {
    return this.#items[this.#selected];
  }

  /** Follows an edit of the prompt: opens, filters or closes for the word at the cursor. */
  async update(text: string, cursor: number): Promise<void> {
    const target = completionTarget(text, cursor);
    const closed = this.#closed;
    if (!target || !closed || closed.kind !== target.kind || closed.start !== target.start) this.#closed = undefined;
    if (!target || this.#closed) {
      this.hide();
      return;
    }
    const kept = this.selected?.value;
    this.#items = await this.source.menu(target);
    const index = kept === undefined ? -1 : this.#items.findIndex((item) => item.value === kept);
    this.#selected = Math.max(0, index);
    this.#target = target;
  }

  /** Off the screen until the next edit (the cursor moved, the history was recalled, a pick was made). */
  hide(): void {
    this.#target = undefined;
    this.#items = [];
    this.#selected = 0;
  }

  /** Esc: off the screen, and not shown again for this word. */
  close(): void {
    if (this.#target) this.#closed = { kind: this.#target.kind, start: this.#target.start };
    this.hide();
  }

  /** Up (-1) or Down (1), round the ends. */
  move(delta: -1 | 1): void {
    const count = this.#items.length;
    if (count > 0) this.#selected = (this.#selected + delta + count) % count;
  }

  /** The rows under the prompt; none when closed. */
  lines(columns: number): string[] {
    const target = this.#target;
    if (!target) return [];
    const sign = target.kind === "command" ? "/" : "@";
    if (this.#items.length === 0)
      return [`  (no ${target.kind === "command" ? "command" : "file"} matches ${sign}${target.word})`];
    const lines = menuLines(this.#items, this.#selected, sign, columns, MENU_ROWS, this.mark);
    const note = this.source.note?.(target);
    if (note) lines.push(note.length < columns ? note : `${note.slice(0, columns - 2)}…`);
    return lines;
  }
}
