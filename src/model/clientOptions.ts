// What both model clients (anthropic.ts, openaiCompatible.ts) take besides their endpoint and
// credential: how to retry, which fetch to use, and when a silent stream counts as dropped.
import type { RetryOptions } from "./retry.ts";

export type FetchFunction = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** A stream that sends nothing for 3 minutes is taken for a dropped connection. */
export const DEFAULT_IDLE_TIMEOUT_MS = 180_000;

export interface StreamOptions {
  retry?: Partial<RetryOptions>;
  fetch?: FetchFunction;
  /**
   * A response that sends nothing for this long is treated as a dropped connection and retried.
   * Default DEFAULT_IDLE_TIMEOUT_MS (Anthropic pings every few seconds); the OpenAI-compatible
   * client gives a server on this machine 10 minutes, as it may read a long prompt for minutes
   * before its first token.
   */
  idleTimeoutMs?: number;
}
