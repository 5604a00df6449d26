// What a raw-mode terminal sends, as keys: plain characters, editing and movement keys, Ctrl-C,
// Ctrl-D and Ctrl-Z, Ctrl-R and Ctrl-G, Ctrl-O, Page Up/Down, Shift-Tab, Shift-Enter and Alt-Enter
// (a newline), and a bracketed paste as one key (so a pasted newline does not send the prompt). The one key parser of
// the CLI: the chat's line
// editor and questions use it as it is, setup's prompts through setup/keys.ts.

export type KeyName =
  | "enter"
  | "newline"
  | "backspace"
  | "delete"
  | "left"
  | "right"
  | "up"
  | "down"
  | "home"
  | "end"
  | "word-left"
  | "word-right"
  | "delete-word"
  | "kill-line"
  | "kill-start"
  | "clear-screen"
  /** Ctrl-R: search the prompt history backwards. */
  | "history-search"
  /** Ctrl-G: leave a search (as in readline). */
  | "cancel"
  | "escape"
  /** Ctrl-O: the transcript view (pager.ts). */
  | "transcript"
  | "page-up"
  | "page-down"
  | "shift-tab"
  | "tab"
  | "interrupt"
  | "eof"
  | "suspend";

export type Key = { name: KeyName } | { name: "char"; char: string } | { name: "paste"; text: string };

const SEQUENCES: Readonly<Record<string, KeyName>> = {
  "\x1b[A": "up",
  "\x1bOA": "up",
  "\x1b[B": "down",
  "\x1bOB": "down",
  "\x1b[C": "right",
  "\x1bOC": "right",
  "\x1b[D": "left",
  "\x1bOD": "left",
  "\x1b[H": "home",
  "\x1bOH": "home",
  "\x1b[1~": "home",
  "\x1b[7~": "home",
  "\x1b[F": "end",
  "\x1bOF": "end",
  "\x1b[4~": "end",
  "\x1b[8~": "end",
  "\x1b[3~": "delete",
  "\x1b[5~": "page-up",
  "\x1b[6~": "page-down",
  "\x1b[1;5C": "word-right",
  "\x1b[1;5D": "word-left",
  "\x1b[1;3C": "word-right",
  "\x1b[1;3D": "word-left",
  "\x1bf": "word-right",
  "\x1bb": "word-left",
  "\x1b[Z": "shift-tab",
  // Alt-Enter (ESC CR), and what terminals send for Shift-Enter once told to tell it from Enter:
  // the CSI-u form (kitty, WezTerm, foot, iTerm2, VS Code's keybinding) and xterm's modifyOtherKeys.
  "\x1b\r": "newline",
  "\x1b\n": "newline",
  "\x1b[13;2u": "newline",
  "\x1b[27;2;13~": "newline",
  "\x1b[13;3u": "newline",
  "\x1b[27;3;13~": "newline",
  "\x1b\x7f": "delete-word",
};

const CONTROL: Readonly<Record<string, KeyName>> = {
  "\r": "enter",
  "\n": "newline",
  "\t": "tab",
  "\x7f": "backspace",
  "\b": "backspace",
  "\x01": "home",
  "\x05": "end",
  "\x02": "left",
  "\x06": "right",
  "\x03": "interrupt",
  "\x04": "eof",
  "\x1a": "suspend",
  "\x0b": "kill-line",
  "\x15": "kill-start",
  "\x17": "delete-word",
  "\x0c": "clear-screen",
  "\x12": "history-search",
  "\x07": "cancel",
  "\x10": "up",
  "\x0e": "down",
  "\x0f": "transcript",
};

const PASTE_START = "\x1b[200~";
const PASTE_END = "\x1b[201~";
/** CSI (`ESC [ … final`), SS3 (`ESC O x`), ESC and one character, or ESC alone. */
const ESCAPE = /^\x1b(?:\[[0-?]*[ -/]*[@-~]|O.|[^[O]|$)/s;
/** The start of an escape sequence cut off at the end of the input: ESC, `ESC [` and parameters, `ESC O`. */
const CUT_ESCAPE = /^\x1b(?:\[[0-?]*[ -/]*|O)?$/;

export interface ParseOptions {
  /**
   * An escape sequence cut off at the end of the input (a lone ESC, too) is returned as `rest`,
   * to be completed by the next chunk: the Esc key and the start of an arrow's sequence look
   * alike until the next byte. The caller gives it up as keys when no byte follows soon
   * (TerminalInput's ESCAPE_WAIT_MS), parsing it again without this.
   */
  holdCutEscape?: boolean;
}

/** Text pasted into the prompt: line ends made "\n", other control characters dropped. */
function cleanPaste(text: string): string {
  return text.replace(/\r\n?/g, "\n").replace(/[\u0000-\u0008\u000B-\u001F\u007F]/g, "");
}

/**
 * Splits input into keys. "\r\n" is one Enter. Unknown escape sequences and other control
 * characters are dropped. A bracketed paste not closed in this chunk is returned as `rest`, to be
 * completed by the next chunk.
 */
export function parseKeys(input: string, options: ParseOptions = {}): { keys: Key[]; rest: string } {
  const keys: Key[] = [];
  let i = 0;
  while (i < input.length) {
    const rest = input.slice(i);
    if (rest.startsWith(PASTE_START)) {
      const end = rest.indexOf(PASTE_END);
      if (end < 0) return { keys, rest };
      keys.push({ name: "paste", text: cleanPaste(rest.slice(PASTE_START.length, end)) });
      i += end + PASTE_END.length;
      continue;
    }
    if (rest.startsWith("\x1b")) {
      if (options.holdCutEscape && CUT_ESCAPE.test(rest)) return { keys, rest };
      const match = ESCAPE.exec(rest);
      const sequence = match?.[0] || "\x1b";
      const known = SEQUENCES[sequence];
      if (known) keys.push({ name: known });
      else if (sequence === "\x1b") keys.push({ name: "escape" });
      // Esc Esc typed fast (or sent by a terminal in one write): two Escapes, not an Alt key.
      else if (sequence === "\x1b\x1b") keys.push({ name: "escape" }, { name: "escape" });
      i += Math.max(sequence.length, 1);
      continue;
    }
    const char = String.fromCodePoint(input.codePointAt(i) as number);
    i += char.length;
    const control = CONTROL[char];
    if (control) {
      if (char === "\r" && input[i] === "\n") i++;
      keys.push({ name: control });
    } else if (char >= " " && !/[\u007f-\u009f]/.test(char)) {
      keys.push({ name: "char", char });
    }
  }
  return { keys, rest: "" };
}
