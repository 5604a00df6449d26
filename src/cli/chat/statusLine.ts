// The status line of the terminal chat: the model, the mode, how full the context is and what
// the session has cost so far — under the prompt while one is typed, under the spinner while the
// model works. It is updated from the Runtime's usage events (after every model response and
// compaction) and its control events (a /model or mode switch). Never in a pipe.
import type { ControlEvent, UsageSnapshot } from "../../core-types/events.ts";
import type { Mode } from "../../core-types/mode.ts";
import { type Style, stripAnsi } from "./style.ts";

export interface StatusSource {
  readonly model: { spec: string };
  readonly mode: Mode;
  readonly controls: { readonly usage: UsageSnapshot; watch(listener: (event: ControlEvent) => void): () => void };
}

export class StatusLine {
  #source: StatusSource | undefined;
  #usage: UsageSnapshot | undefined;
  #unwatch: (() => void) | undefined;

  constructor(private readonly style: Style) {}

  /** The session the line describes (a new one after /clear or a restart). */
  attach(source: StatusSource): void {
    this.#unwatch?.();
    this.#source = source;
    this.#usage = source.controls.usage;
    this.#unwatch = source.controls.watch((event) => {
      if (event.type === "usage") this.update(event);
    });
  }

  detach(): void {
    this.#unwatch?.();
    this.#unwatch = undefined;
    this.#source = undefined;
  }

  /** A usage event of a turn (after a model response). */
  update(usage: UsageSnapshot): void {
    this.#usage = { used: usage.used, size: usage.size, ...(usage.cost !== undefined && { cost: usage.cost }) };
  }

  /** The line, dimmed; undefined before a session started. */
  text(): string | undefined {
    const source = this.#source;
    if (!source) return undefined;
    return this.style.dim(statusText(source.model.spec, source.mode, this.#usage));
  }
}

/** "claude-sonnet-5 · build mode · context 12K / 200K (6%) · $0.0421". */
export function statusText(model: string, mode: Mode, usage: UsageSnapshot | undefined): string {
  const parts = [model, `${mode} mode`];
  if (usage && usage.size > 0) {
    const percent = Math.min(100, Math.round((usage.used / usage.size) * 100));
    parts.push(`context ${count(usage.used)} / ${count(usage.size)} (${percent}%)`);
  }
  if (usage) parts.push(usage.cost === undefined ? "cost unknown" : `$${cost(usage.cost)}`);
  return parts.join(" · ");
}

/** 950, 3.9K, 32K, 1M, 1.5M: short enough for one row. */
function count(tokens: number): string {
  if (tokens < 1_000) return String(tokens);
  if (tokens < 10_000) return `${Number((tokens / 1_000).toFixed(1))}K`;
  if (tokens < 1_000_000) return `${Math.round(tokens / 1_000)}K`;
  return `${Number((tokens / 1_000_000).toFixed(1))}M`;
}

/** Dollars with the digits that matter: $0.0042, $0.42, $12.30. */
function cost(dollars: number): string {
  if (dollars === 0) return "0.00";
  return dollars < 0.1 ? dollars.toFixed(4) : dollars.toFixed(2);
}

/** The status line as one row under the prompt: cut to the window so it never wraps. */
export function footerRow(text: string | undefined, columns: number): string | undefined {
  if (text === undefined) return undefined;
  const width = columns - 1;
  const plain = stripAnsi(text);
  return [...plain].length > width ? `${[...plain].slice(0, width - 1).join("")}…` : text;
}
