// The prompts Up, Down and Ctrl-R go through: this project's saved history (store/promptHistory.ts)
// and what this chat added since. A history that cannot be saved is said once, and the chat goes
// on with the prompts in memory.
import { messageOf } from "../../errors/caught.ts";
import { appendHistory, type HistoryEntry, historyFile, readHistory } from "../../store/promptHistory.ts";

export interface PromptHistory {
  /** Oldest first. */
  readonly entries: readonly HistoryEntry[];
  add(entry: HistoryEntry): void;
}

/** Prompts kept for this chat only (a test, or before the project is known). */
export class MemoryHistory implements PromptHistory {
  readonly entries: HistoryEntry[] = [];

  add(entry: HistoryEntry): void {
    const last = this.entries.at(-1);
    if (
      entry.text.trim() === "" ||
      (last && last.text === entry.text && JSON.stringify(last) === JSON.stringify(entry))
    )
      return;
    this.entries.push(entry);
  }
}

/** The project's history file, read once at the start; each prompt is added to it as sent. */
export class ProjectHistory extends MemoryHistory {
  readonly #file: string;
  #failed = false;

  constructor(
    historyDir: string,
    root: string,
    private readonly onError: (text: string) => void,
  ) {
    super();
    this.#file = historyFile(historyDir, root);
    this.entries.push(...readHistory(this.#file));
  }

  override add(entry: HistoryEntry): void {
    super.add(entry);
    try {
      appendHistory(this.#file, entry);
    } catch (error) {
      if (this.#failed) return;
      this.#failed = true;
      this.onError(
        `The prompt history could not be saved to ${this.#file} (${messageOf(error)}); ` +
          `this chat keeps it until it ends. Check that the folder can be written.`,
      );
    }
  }
}
