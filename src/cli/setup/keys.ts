// The keys setup's prompts act on, from the CLI's one key parser (../keys.ts): setup reads short
// answers (a menu choice, a key, y/n), so a paste is the characters typed one by one, a newline is
// Enter, and Ctrl-U clears the line. Everything else the chat's editor knows is dropped here.
import { type Key as TerminalKey, parseKeys as parseTerminalKeys } from "../keys.ts";

/** One key press (or pasted character) as the setup prompts see it. */
export type KeyName =
  | "up"
  | "down"
  | "home"
  | "end"
  | "enter"
  | "backspace"
  | "escape"
  | "interrupt"
  | "eof"
  | "clear-line";
export type Key = { name: KeyName } | { name: "char"; char: string };

const KEPT: ReadonlySet<string> = new Set<KeyName>([
  "up",
  "down",
  "home",
  "end",
  "enter",
  "backspace",
  "escape",
  "interrupt",
  "eof",
]);

function setupKeys(key: TerminalKey): Key[] {
  if (key.name === "char") return [key];
  // A paste's line ends are dropped: an answer is one line, and a pasted key ends in a newline.
  if (key.name === "paste") return [...key.text.replace(/\n/g, "")].map((char) => ({ name: "char", char }));
  if (key.name === "newline") return [{ name: "enter" }];
  if (key.name === "kill-start") return [{ name: "clear-line" }];
  return KEPT.has(key.name) ? [{ name: key.name as KeyName }] : [];
}

/**
 * Splits what a raw-mode terminal sent into setup's keys. "\r\n" is one Enter; a bracketed paste
 * not closed in this chunk comes back as `rest`, for the next chunk to complete.
 */
export function parseSetupKeys(input: string): { keys: Key[]; rest: string } {
  const { keys, rest } = parseTerminalKeys(input);
  return { keys: keys.flatMap(setupKeys), rest };
}

/** The keys of a whole input (a test's, or a chunk known to be complete). */
export function parseKeys(input: string): Key[] {
  return parseSetupKeys(input).keys;
}
