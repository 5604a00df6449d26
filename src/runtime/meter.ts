// Token accounting of one Runtime: the session total (for the token budget) and an estimate of
// the context the next request will fill (for compaction). The estimate is the last response's
// reported size plus a chars/4 guess of what was added since; without a report, chars/4 of it all.
import type { Usage } from "../model/types.ts";

export const CHARS_PER_TOKEN = 4;

/** Tokens a response cost toward the budget: all but cache reads (which are cheap and re-counted every step). */
export function budgetTokens(usage: Usage): number {
  return usage.inputTokens + usage.cacheCreationTokens + usage.outputTokens;
}

/** The size of the context a response saw and made. */
export function contextTokens(usage: Usage): number {
  return usage.inputTokens + usage.cacheReadTokens + usage.cacheCreationTokens + usage.outputTokens;
}

export class UsageMeter {
  #total = 0;
  /** Reported context size and the conversation's size in chars at that moment. */
  #base: { tokens: number; chars: number } | undefined;

  /** `fixedChars`: system prompt and tool specs, sent with every request. */
  constructor(readonly fixedChars: number) {}

  /** Tokens used so far in the session. */
  get total(): number {
    return this.#total;
  }

  /** Counts a response (or a summary request) toward the budget. */
  spend(usage: Usage): void {
    this.#total += budgetTokens(usage);
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
