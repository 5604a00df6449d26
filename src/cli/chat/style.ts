// Colours for the terminal: on for a terminal, off in a pipe, a file, or with NO_COLOR set
// (https://no-color.org), so a log or a script reads plain text.

export interface Style {
  readonly enabled: boolean;
  bold(text: string): string;
  dim(text: string): string;
  italic(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
  magenta(text: string): string;
  blue(text: string): string;
  underline(text: string): string;
  strike(text: string): string;
}

const plain = (text: string) => text;
/** Colours each line on its own, so a line cut or rewritten later never leaks its colour. */
const sgr = (open: string, close: string) => (text: string) =>
  text === ""
    ? ""
    : text
        .split("\n")
        .map((line) => (line === "" ? "" : `\x1b[${open}m${line}\x1b[${close}m`))
        .join("\n");

export const NO_STYLE: Style = {
  enabled: false,
  bold: plain,
  dim: plain,
  italic: plain,
  red: plain,
  green: plain,
  yellow: plain,
  cyan: plain,
  magenta: plain,
  blue: plain,
  underline: plain,
  strike: plain,
};

export const COLOUR_STYLE: Style = {
  enabled: true,
  bold: sgr("1", "22"),
  dim: sgr("2", "22"),
  italic: sgr("3", "23"),
  red: sgr("31", "39"),
  green: sgr("32", "39"),
  yellow: sgr("33", "39"),
  cyan: sgr("36", "39"),
  magenta: sgr("35", "39"),
  blue: sgr("34", "39"),
  underline: sgr("4", "24"),
  strike: sgr("9", "29"),
};

/** Colours only for a terminal, and never with NO_COLOR or TERM=dumb. */
export function styleFor(isTTY: boolean, env: Record<string, string | undefined>): Style {
  if (!isTTY || env.NO_COLOR || env.TERM === "dumb") return NO_STYLE;
  return COLOUR_STYLE;
}

export interface TerminalMode {
  /** keys: raw mode and the line editor; echoed-lines: the terminal's own line mode; lines: a pipe. */
  input: "keys" | "echoed-lines" | "lines";
  /** terminal: colours and a status line drawn in place; plain: lines only. */
  output: "terminal" | "plain";
}

/**
 * How the chat talks to its terminal. TERM=dumb (Emacs' shell, some CI ttys) or no TERM at all
 * means a terminal that cannot take cursor control or colours: the chat is then as in a pipe,
 * except that the terminal echoes what is typed.
 */
export function terminalMode(
  stdin: { isTTY?: boolean; setRawMode?: unknown },
  stdout: { isTTY?: boolean },
  env: Record<string, string | undefined>,
): TerminalMode {
  const capable = env.TERM !== undefined && env.TERM !== "" && env.TERM !== "dumb";
  const output = stdout.isTTY && capable ? "terminal" : "plain";
  // Typed lines echo on the terminal, not in a piped stdout: the transcript there writes them.
  if (!stdin.isTTY || !stdout.isTTY) return { input: "lines", output };
  if (output === "terminal" && typeof stdin.setRawMode === "function") return { input: "keys", output };
  return { input: "echoed-lines", output };
}

/** Removes colour and cursor sequences: what a reader of the text sees. */
export function stripAnsi(text: string): string {
  return text.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "");
}
