/** One key press (or pasted character) as the setup prompts see it. */
export type KeyName = "up" | "down" | "home" | "end" | "enter" | "backspace" | "escape" | "interrupt" | "eof" | "clear-line";
export type Key = { name: KeyName } | { name: "char"; char: string };

const SEQUENCES: Record<string, KeyName> = {
  "\x1b[A": "up",
  "\x1bOA": "up",
  "\x1b[B": "down",
  "\x1bOB": "down",
  "\x1b[H": "home",
  "\x1bOH": "home",
  "\x1b[1~": "home",
  "\x1b[F": "end",
  "\x1bOF": "end",
  "\x1b[4~": "end",
};

const CONTROL: Record<string, KeyName> = {
  "\r": "enter",
  "\n": "enter",
  "\x7f": "backspace",
  "\b": "backspace",
  "\x03": "interrupt",
  "\x04": "eof",
  "\x15": "clear-line",
};

/** An escape sequence: CSI (`ESC [ … final`), SS3 (`ESC O x`), or ESC and one character. */
const ESCAPE = /^\x1b(?:\[[0-?]*[ -/]*[@-~]|O.|[^[O]|$)/;

/**
 * Splits what a raw-mode terminal sent into keys. A paste arrives as many characters at once;
 * "\r\n" counts as one Enter. Unknown escape sequences (function keys, bracketed-paste marks)
 * and other control characters are dropped.
 */
export function parseKeys(input: string): Key[] {
  const keys: Key[] = [];
  let i = 0;
  while (i < input.length) {
    const rest = input.slice(i);
    if (rest.startsWith("\x1b")) {
      const match = ESCAPE.exec(rest);
      const sequence = match?.[0] ?? "\x1b";
      const known = SEQUENCES[sequence];
      if (known) keys.push({ name: known });
      else if (sequence === "\x1b") keys.push({ name: "escape" });
      i += Math.max(sequence.length, 1);
      continue;
    }
    const char = String.fromCodePoint(input.codePointAt(i) as number);
    i += char.length;
    const control = CONTROL[char];
    if (control) {
      if (char === "\r" && input[i] === "\n") i++;
      keys.push({ name: control });
    } else if (char >= " " && char !== "\x7f" && !/[\u0080-\u009f]/.test(char)) {
      keys.push({ name: "char", char });
    }
  }
  return keys;
}
