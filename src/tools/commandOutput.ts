// What a command printed, made fit for the model and for a progress line: terminal escapes
// removed, carriage-return redraws folded to their last state, and a cap that keeps the head and
// the tail (the command's header and its final errors) and says how much of the middle was cut.
import { visible } from "../text/visible.ts";
import { groupedCount } from "../text/count.ts";

/** The bash tool's cap on the output the model reads. */
export const OUTPUT_CHARS = 30_000;

// CSI (colours, cursor moves), OSC (titles, hyperlinks; ended by BEL or ST), and two-character escapes.
const ANSI = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-Z\\-_]/g;

function stripAnsi(text: string): string {
  return text.replace(ANSI, "");
}

/** A line redrawn with `\r` (progress bars) keeps only what it finally showed. */
function foldCarriageReturns(text: string): string {
  if (!text.includes("\r")) return text;
  return text
    .split("\n")
    .map((line) => {
      const parts = line.replace(/\r+$/, "").split("\r");
      return parts[parts.length - 1] ?? "";
    })
    .join("\n");
}

export function cleanOutput(text: string): string {
  return foldCarriageReturns(stripAnsi(text));
}

/**
 * Keeps the first and the last `max / 2` characters of a stream and counts the rest, so a
 * command that prints gigabytes costs no more memory than one that prints `max` characters.
 */
export class HeadTail {
  #head = "";
  #tail = "";
  #total = 0;
  readonly #half: number;

  constructor(readonly max: number = OUTPUT_CHARS) {
    this.#half = Math.floor(max / 2);
  }

  push(text: string): void {
    this.#total += text.length;
    if (this.#head.length < this.#half) {
      const room = this.#half - this.#head.length;
      this.#head += text.slice(0, room);
      text = text.slice(room);
    }
    if (text.length === 0) return;
    const keep = this.max - this.#half;
    // A chunk longer than the tail is the tail by itself: no copy of the old one (a command that
    // prints megabytes makes no garbage here beyond its own chunks).
    this.#tail = text.length >= keep ? text.slice(-keep) : (this.#tail + text).slice(-keep);
  }

  get total(): number {
    return this.#total;
  }

  get truncated(): boolean {
    return this.#total > this.max;
  }

  /** The kept text, cleaned, with a note where the middle was cut. */
  text(): string {
    if (!this.truncated) return cleanOutput(this.#head + this.#tail);
    const cut = this.#total - this.#head.length - this.#tail.length;
    return (
      `${cleanOutput(this.#head)}\n\n[… ${groupedCount(cut)} characters of output cut ` +
      `here; ${groupedCount(this.#total)} in all …]\n\n${cleanOutput(this.#tail)}`
    );
  }
}

/** The last `count` non-empty lines of `text`, cleaned and made visible, for a progress line. */
function lastLines(text: string, count: number): string {
  const lines = cleanOutput(text)
    .split("\n")
    .map((line) => line.trimEnd())
    .filter((line) => line.length > 0);
  return visible(lines.slice(-count).join("\n"));
}

/** What a progress line is made from: the latest output, this many characters of it. */
const TAIL_CHARS = 4_000;

export interface ProgressOptions {
  /** At most one progress line per this many milliseconds. */
  intervalMs?: number;
  /** How many of the latest lines each progress shows. */
  lines?: number;
  now?: () => number;
}

/**
 * Streams a command's latest lines to `emit`, at most once per interval: the first chunk goes out
 * at once, later ones wait for the interval, and a trailing update makes sure the newest lines
 * are shown when the output pauses.
 */
export class ProgressThrottle {
  #tail = "";
  #last = Number.NEGATIVE_INFINITY;
  #sent = "";
  #timer: ReturnType<typeof setTimeout> | undefined;
  #stopped = false;
  readonly #interval: number;
  readonly #lines: number;
  readonly #now: () => number;

  constructor(
    private readonly emit: (text: string) => void,
    options: ProgressOptions = {},
  ) {
    this.#interval = options.intervalMs ?? 100;
    this.#lines = options.lines ?? 5;
    this.#now = options.now ?? (() => performance.now());
  }

  push(chunk: string): void {
    if (this.#stopped) return;
    this.#tail = chunk.length >= TAIL_CHARS ? chunk.slice(-TAIL_CHARS) : (this.#tail + chunk).slice(-TAIL_CHARS);
    if (this.#timer) return;
    const wait = this.#last + this.#interval - this.#now();
    if (wait <= 0) this.#flush();
    else this.#timer = setTimeout(() => this.#flush(), wait);
  }

  #flush(): void {
    this.#timer = undefined;
    if (this.#stopped) return;
    this.#last = this.#now();
    const text = lastLines(this.#tail, this.#lines);
    if (text.length === 0 || text === this.#sent) return;
    this.#sent = text;
    this.emit(text);
  }

  /** No more progress after this (the result follows). */
  stop(): void {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}

const QUOTED_ROOT = (root: string) => {
  const escaped = root.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`^\\s*cd\\s+(?:"${escaped}/?"|'${escaped}/?'|${escaped}/?)\\s*(?:&&|;)\\s*`);
};

/** `cd <root> && cmd` → `cmd`: commands already start in the root, and the prefix only hides what runs. */
export function stripCdRoot(command: string, root: string): string {
  const match = QUOTED_ROOT(root).exec(command);
  if (!match) return command;
  const rest = command.slice(match[0].length);
  return rest.trim().length > 0 ? rest : command;
}
