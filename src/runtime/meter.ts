// Token accounting of one Runtime: the session total (for the token budget), its cost in US
// dollars (the catalog's prices), and an estimate of the context the next request will fill (for
// compaction and the editor's meter). The estimate is the last response's reported size plus a
// chars/4 guess of what was added since; without a report, chars/4 of it all.
import type { Price } from "../model/catalog.ts";
import type { Usage } from "../core-types/usage.ts";

export const CHARS_PER_TOKEN = 4;

/** Tokens a response cost toward the budget: all but cache reads (which are cheap and re-counted every step). */
export function budgetTokens(usage: Usage): number {
  return usage.inputTokens + usage.cacheCreationTokens + usage.outputTokens;
}

/** The size of the context a response saw and made. */
function contextTokens(usage: Usage): number {
  return usage.inputTokens + usage.cacheReadTokens + usage.cacheCreationTokens + usage.outputTokens;
}

/** What `usage` costs at `price`, in US dollars (prices are per million tokens). */
function usageCost(usage: Usage, price: Price): number {
  return (
    (usage.inputTokens * price.input +
      usage.outputTokens * price.output +
      usage.cacheReadTokens * price.cacheRead +
      usage.cacheCreationTokens * price.cacheWrite) /
    1_000_000
  );
}

export class UsageMeter {
  #total = 0;
  #cost = 0;
  /** A response was spent at no known price: the session's cost is unknown from then on. */
  #unpriced = false;
  /** The price of the model in use: what spend() charges when the caller names no other. */
  price: Price | null = null;
  /** Reported context size and the conversation's size in chars at that moment. */
  #base: { tokens: number; chars: number } | undefined;

  #fixed: number | (() => number);

  /**
   * `fixed`: the chars of the system prompt and tool specs, sent with every request; a function
   * is read at the first estimate (the specs are made when first asked for, after session/new).
   */
  constructor(fixed: number | (() => number)) {
    this.#fixed = fixed;
  }

  /** The system prompt and tool specs, in chars. */
  get fixedChars(): number {
    if (typeof this.#fixed === "function") this.#fixed = this.#fixed();
    return this.#fixed;
  }

  /** Tokens used so far in the session. */
  get total(): number {
    return this.#total;
  }

  /** The session's cost so far in US dollars; undefined when a response came from a model with no price. */
  get cost(): number | undefined {
    return this.#unpriced ? undefined : this.#cost;
  }

  /**
   * Counts a response (or a summary request) toward the budget, and its cost at `price` (default: the model in use).
   */
  spend(usage: Usage, price: Price | null = this.price): void {
    this.#total += budgetTokens(usage);
    if (price === null) this.#unpriced ||= budgetTokens(usage) + usage.cacheReadTokens > 0;
    else this.#cost += usageCost(usage, price);
  }

  /** A response was added; `chars` is the conversation's size after it. */
  observe(usage: Usage, chars: number): void {
    const tokens = contextTokens(usage);
    if (usage.estimated || tokens === 0) return;
    this.#base = { tokens, chars };
  }

  /** The conversation changed in place (compaction): the next estimate starts from `tokens`. */
  rebase(tokens: number | undefined, chars: number): void {
    this.#base = tokens === undefined ? undefined : { tokens, chars };
  }

  estimate(chars: number): number {
    if (this.#base) return this.#base.tokens + Math.max(0, Math.ceil((chars - this.#base.chars) / CHARS_PER_TOKEN));
    return Math.ceil((this.fixedChars + chars) / CHARS_PER_TOKEN);
  }
}

/** How full the context is (the estimate for `chars` of conversation), the window, and the cost so far. */
export function usageSnapshot(
  meter: UsageMeter,
  chars: number,
  size: number,
): { used: number; size: number; cost?: number } {
  const cost = meter.cost;
  return { used: meter.estimate(chars), size, ...(cost !== undefined && { cost }) };
}
