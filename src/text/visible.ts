// Display hygiene shared by every surface (terminal, ACP, audit): text from the model or a
// file must not be able to look like something else in a title, a preview or an approval.

/**
 * Characters that are invisible, reorder text, or control a terminal: C0/C1 controls, format
 * characters (bidi overrides and isolates, zero-width, tags, BOM), every default-ignorable code
 * point, line/paragraph separators, and spaces other than the plain one. Newline and tab are
 * handled separately (visible() keeps them, oneLine() folds them).
 */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}\p{Zl}\p{Zp}\p{Zs}]/u;
const HIDDEN_GLOBAL = /[\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}\p{Zl}\p{Zp}\p{Zs}]/gu;

/** Emoji presentation selectors: common in ordinary text and harmless, so not flagged. */
const HARMLESS = new Set(["\u{FE0E}", "\u{FE0F}"]);
const KEPT = new Set(["\n", "\t", " "]);

/** A run of blanks this long can push the rest of a line out of view (a padded command). */
const PADDING_RUN = 24;
const PADDING = new RegExp(`[ \\t]{${PADDING_RUN},}`, "g");

function escape(char: string): string {
  const code = char.codePointAt(0) ?? 0;
  return `⟨U+${code.toString(16).toUpperCase().padStart(4, "0")}⟩`;
}

function isHidden(char: string): boolean {
  return !KEPT.has(char) && !HARMLESS.has(char) && HIDDEN.test(char);
}

/**
 * Makes every hidden character visible as ⟨U+XXXX⟩ and shortens long runs of blanks to a
 * marker that says how long they were. Newlines and tabs stay.
 */
export function visible(text: string): string {
  return text
    .replace(HIDDEN_GLOBAL, (char) => (isHidden(char) ? escape(char) : char))
    .replace(PADDING, (run) => `⟨${run.length} blanks⟩`);
}

/** True when visible() would change the text: the reader should be warned. */
export function hasHidden(text: string): boolean {
  for (const char of text) if (isHidden(char)) return true;
  PADDING.lastIndex = 0;
  return PADDING.test(text);
}

/**
 * One visible line for a title: hidden characters escaped, each line break shown as ↵ so a
 * second command cannot pass for part of the first, and cut to `max` characters.
 */
export function oneLine(text: string, max = 200): string {
  const line = visible(text.replace(/\r?\n/g, " ↵ ").replace(/\t/g, " ")).trim();
  const chars = [...line];
  return chars.length > max ? `${chars.slice(0, max - 1).join("")}…` : line;
}

/** C0 and C1 controls (newline and tab excepted), bidi embeddings, overrides and isolates. */
const UNSAFE = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;

/**
 * Streamed answer or thinking text, safe to show (a terminal, an editor): each control or
 * reordering character as ⟨U+XXXX⟩. Unlike visible(), it keeps the layout (blank runs) and the
 * joiners and selectors that ordinary text and emoji use.
 */
export function safeText(text: string): string {
  return text.replace(UNSAFE, (char) => escape(char));
}

/** Printable ASCII and the line controls a terminal draws: nothing to escape (the common case, checked fast). */
const TERMINAL_PLAIN = /^[\x20-\x7e\n\t\r]*$/;

/**
 * A command's output for a terminal view: every hidden character made visible as ⟨U+XXXX⟩ as by
 * visible(), except the line controls a terminal draws — newline, tab and carriage return (a
 * progress bar redraws its line, as the terminal chat shows it) — and blank runs stay as printed
 * (aligned columns). Escape sequences must be removed first: their ESC would show as ⟨U+001B⟩.
 */
export function visibleTerminal(text: string): string {
  if (TERMINAL_PLAIN.test(text)) return text;
  return text.replace(HIDDEN_GLOBAL, (char) => (char === "\r" || !isHidden(char) ? char : escape(char)));
}
