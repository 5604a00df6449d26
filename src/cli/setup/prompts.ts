import type { Key } from "./keys.ts";
import type { TerminalSession } from "./terminal.ts";

/** Where a menu's cursor is, and the digits typed so far (so "12" reaches item 12). */
export interface MenuState {
  cursor: number;
  digits: string;
}

/**
 * One key applied to a menu of `count` items: arrows move (and wrap), digits jump to that
 * number, Enter chooses. Pure, so the keys' meaning is tested without a terminal.
 */
export function menuKey(state: MenuState, key: Key, count: number): MenuState & { chosen: boolean } {
  switch (key.name) {
    case "up":
      return { cursor: (state.cursor - 1 + count) % count, digits: "", chosen: false };
    case "down":
      return { cursor: (state.cursor + 1) % count, digits: "", chosen: false };
    case "home":
      return { cursor: 0, digits: "", chosen: false };
    case "end":
      return { cursor: count - 1, digits: "", chosen: false };
    case "enter":
      return { ...state, digits: "", chosen: true };
    case "char": {
      if (!/^[0-9]$/.test(key.char)) return { ...state, chosen: false };
      for (const digits of [state.digits + key.char, key.char]) {
        const number = Number(digits);
        if (number >= 1 && number <= count) return { cursor: number - 1, digits, chosen: false };
      }
      return { ...state, digits: "", chosen: false };
    }
    default:
      return { ...state, chosen: false };
  }
}

/**
 * The menu as drawn: a title, one numbered line per item, the cursor's line marked. A list
 * taller than `maxItems` shows a window that follows the cursor, so it never scrolls the screen.
 */
export function menuLines(
  session: Pick<TerminalSession, "style">,
  title: string,
  items: readonly string[],
  cursor: number,
  maxItems = items.length,
): string[] {
  const { style } = session;
  const width = String(items.length).length;
  const lines = [`${style.bold(title)} ${style.dim("(↑/↓ or a number, then Enter)")}`];
  const shown = Math.max(1, Math.min(maxItems, items.length));
  const first = Math.min(Math.max(0, cursor - Math.floor(shown / 2)), items.length - shown);
  if (shown < items.length) lines.push(style.dim(first > 0 ? `  … ${first} more above` : ""));
  for (let index = first; index < first + shown; index++) {
    const number = `${String(index + 1).padStart(width)}.`;
    const item = items[index] as string;
    lines.push(index === cursor ? style.accent(`❯ ${number} ${item}`) : `  ${number} ${item}`);
  }
  const below = items.length - first - shown;
  if (shown < items.length) lines.push(style.dim(below > 0 ? `  … ${below} more below` : ""));
  return lines;
}

/** Asks to choose one of `items`; returns its index. `chosen` is what stays on screen after. */
export async function select(
  session: TerminalSession,
  options: { title: string; items: readonly string[]; initial?: number; chosen: (index: number) => string },
): Promise<number> {
  const count = options.items.length;
  let state: MenuState = { cursor: Math.min(Math.max(options.initial ?? 0, 0), count - 1), digits: "" };
  session.discardTypeahead();
  session.hideCursor(true);
  try {
    for (;;) {
      // Room for the title, the two "more" lines and the line the cursor rests on.
      session.draw(menuLines(session, options.title, options.items, state.cursor, session.rows - 4));
      const next = menuKey(state, await session.nextKey(), count);
      state = next;
      if (next.chosen) break;
    }
  } finally {
    session.erase();
    session.hideCursor(false);
  }
  session.write(`${options.chosen(state.cursor)}\n`);
  return state.cursor;
}

const MASK_LIMIT = 48;

/** What stands for a hidden entry of `length` characters. */
export function maskEntry(length: number): string {
  return length > MASK_LIMIT ? `${"•".repeat(MASK_LIMIT)} (${length} characters)` : "•".repeat(length);
}

/**
 * Reads a secret: never echoed, one `•` per character. Backspace and Ctrl-U edit it, Enter
 * ends it, Ctrl-C (or Ctrl-D on an empty entry) cancels. Returns it trimmed.
 */
export async function secret(session: TerminalSession, label: string): Promise<string> {
  let value = "";
  session.discardTypeahead();
  let done = false;
  while (!done) {
    session.draw([`${label}${maskEntry([...value].length)}`]);
    // A paste arrives as many keys at once: take them all, then draw once.
    let key: Key | undefined = await session.nextKey();
    while (key) {
      if (key.name === "char") value += key.char;
      else if (key.name === "backspace") value = [...value].slice(0, -1).join("");
      else if (key.name === "clear-line") value = "";
      else if (key.name === "eof" && value.length === 0) session.cancel();
      else if (key.name === "enter") done = true;
      key = done ? undefined : session.queuedKey();
    }
  }
  session.draw([`${label}${maskEntry([...value].length)}`]);
  session.commit();
  return value.trim();
}

/** A yes/no question answered by one key; Enter takes the default. */
export async function confirm(session: TerminalSession, question: string, defaultYes: boolean): Promise<boolean> {
  session.discardTypeahead();
  const hint = defaultYes ? "[Y/n]" : "[y/N]";
  session.draw([`${question} ${session.style.dim(hint)} `]);
  for (;;) {
    const key = await session.nextKey();
    let answer: boolean | undefined;
    if (key.name === "enter") answer = defaultYes;
    else if (key.name === "char" && /^[yY]$/.test(key.char)) answer = true;
    else if (key.name === "char" && /^[nN]$/.test(key.char)) answer = false;
    if (answer !== undefined) {
      session.draw([`${question} ${answer ? "yes" : "no"}`]);
      session.commit();
      return answer;
    }
  }
}
