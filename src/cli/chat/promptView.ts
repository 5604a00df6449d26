// The prompt being edited, drawn in place: its text after the prompt sign (or a search's label),
// and under it, for a moment, the lines Tab lists. `#row` is the cursor's row below the prompt's
// first row, so each draw goes back up to that row and draws everything below it again. A prompt
// taller than the window shows the rows around the cursor only: the cursor cannot go up past the
// window's top, so rows drawn above it could never be drawn again (promptWindow.ts). When it is
// sent, it is written whole, for good.
import type { EditBuffer } from "./lineEditor.ts";
import { layout, moveCursor } from "./lineEditor.ts";
import { promptWindow } from "./promptWindow.ts";
import type { Screen } from "./screen.ts";
import { footerRow } from "./statusLine.ts";

export class PromptView {
  #row = 0;
  /** The first row shown of a prompt taller than the window. */
  #top = 0;
  /** Lines shown under the prompt until the next key (Tab's candidates). */
  below: string[] = [];

  constructor(
    private readonly screen: Screen,
    private readonly prompt: string,
    private readonly continuation: string,
    readonly buffer: EditBuffer,
    /** The status line under the prompt while it is edited (statusLine.ts); not left behind. */
    private readonly footer?: () => string | undefined,
  ) {}

  /**
   * Draws the text again over what was drawn (`final`: the cursor at the end, to leave the prompt).
   * `label` stands in for the prompt sign and `text` for the buffer's (a history search).
   */
  draw(final = false, shown?: { label: string; text: string }): void {
    const { buffer, screen } = this;
    const text = shown?.text ?? buffer.text;
    const cursor = shown ? text.length : final ? buffer.text.length : buffer.cursor;
    const up = this.#row > 0 ? `\x1b[${this.#row}A` : "";
    // Tab's list, then the status line; each is one row (cut to the width), after a line break of its own.
    const footer = final ? undefined : footerRow(this.footer?.(), screen.columns);
    const rows = [...(final ? [] : this.below), ...(footer === undefined ? [] : [footer])];
    const prompt = shown?.label ?? this.prompt;
    const full = layout(prompt, this.continuation, text, cursor, screen.columns);
    const room = Math.max(1, screen.rows - rows.length);
    const cropped =
      !final && full.endRow + 1 > room
        ? promptWindow(
            { prompt, continuation: this.continuation, text, columns: screen.columns },
            full,
            room,
            this.#top,
          )
        : undefined;
    this.#top = cropped?.top ?? 0;
    const view = cropped?.view ?? full;
    const below = rows.length === 0 ? "" : `\r\n${rows.join("\r\n")}`;
    const end = view.endRow + rows.length;
    screen.raw(`${up}\r\x1b[J${view.output}${below}${moveCursor(end, view.cursorRow, view.cursorColumn)}`);
    this.#row = view.cursorRow;
  }

  /** Leaves the prompt as typed, the cursor on the line below. */
  commit(end = "\r\n"): void {
    this.below = [];
    this.draw(true);
    this.screen.raw(end);
    this.screen.markLineStart();
  }

  /** Takes the prompt off the screen. */
  erase(): void {
    this.screen.raw(`${this.#row > 0 ? `\x1b[${this.#row}A` : ""}\r\x1b[J`);
    this.screen.markLineStart();
  }

  /** Draws it anew where the cursor is (after a cleared screen, or back from a suspension). */
  redraw(): void {
    this.#row = 0;
    this.draw();
  }
}
