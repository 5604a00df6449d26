// When a failed model request is worth another try, how long to wait, and what to tell the
// user when it is not. Provider-neutral: the Anthropic client describes its failures with
// AttemptFailure and leaves every decision to this file.
import { ModelError } from "./types.ts";

export interface RetryOptions {
  /** Attempts in all, the first one included. */
  maxAttempts: number;
  /** The first backoff delay; it doubles per attempt. */
  baseDelayMs: number;
  /** The cap of the exponential backoff (a server's retry-after is honoured beyond it). */
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryOptions = { maxAttempts: 5, baseDelayMs: 1_000, maxDelayMs: 30_000 };

/** The longest a server's retry-after may make us wait. */
const MAX_RETRY_AFTER_MS = 5 * 60_000;

/** What went wrong with one attempt. */
export type AttemptFailure =
  /** The server answered with an HTTP error status before any event. */
  | { kind: "http"; status: number; errorType?: string; message?: string; headers?: Headers }
  /** The server sent an `error` event in the middle of a 200 stream. */
  | { kind: "stream"; errorType?: string; message?: string }
  /** No usable answer: connection refused or dropped, or the stream ended early. */
  | { kind: "connection"; message: string };

const RETRYABLE_STATUS = new Set([408, 409, 429]);
const RETRYABLE_STREAM_ERRORS = new Set(["overloaded_error", "api_error", "rate_limit_error", "timeout_error"]);

export function isRetryable(failure: AttemptFailure): boolean {
  switch (failure.kind) {
    case "connection":
      return true;
    case "stream":
      return failure.errorType === undefined || RETRYABLE_STREAM_ERRORS.has(failure.errorType);
    case "http": {
      const hint = failure.headers?.get("x-should-retry");
      if (hint === "true") return true;
      if (hint === "false") return false;
      return RETRYABLE_STATUS.has(failure.status) || failure.status >= 500;
    }
  }
}

/** The server's own wait, from retry-after-ms or retry-after (seconds or an HTTP date). */
export function retryAfterMs(headers: Headers | undefined, now = Date.now()): number | undefined {
  const ms = headers?.get("retry-after-ms");
  if (ms) {
    const value = Number(ms);
    if (Number.isFinite(value) && value >= 0) return Math.min(value, MAX_RETRY_AFTER_MS);
  }
  const after = headers?.get("retry-after");
  if (!after) return undefined;
  const seconds = Number(after);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds * 1000, MAX_RETRY_AFTER_MS);
  const date = Date.parse(after);
  if (Number.isNaN(date)) return undefined;
  return Math.min(Math.max(0, date - now), MAX_RETRY_AFTER_MS);
}

/**
 * How long to wait before attempt `attempt + 1`: the server's retry-after when it sent one,
 * else exponential backoff from baseDelayMs, capped at maxDelayMs, minus up to 25% jitter.
 */
export function retryDelayMs(
  failure: AttemptFailure,
  attempt: number,
  options: RetryOptions,
  random = Math.random,
): number {
  const fromServer = failure.kind === "http" ? retryAfterMs(failure.headers) : undefined;
  if (fromServer !== undefined) return Math.round(fromServer);
  const backoff = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(backoff * (1 - 0.25 * random()));
}

/** A short account of the failure, e.g. `429 rate_limit_error: Number of requests exceeded`. */
export function attemptFailureText(failure: AttemptFailure): string {
  if (failure.kind === "connection") return failure.message;
  const parts = [failure.kind === "http" ? String(failure.status) : "stream error", failure.errorType].filter(Boolean);
  const head = parts.join(" ");
  return failure.message ? `${head}: ${failure.message}` : head;
}

/** The error the caller shows: what happened, after how many attempts, and what to do. */
export function failureError(failure: AttemptFailure, attempts: number, baseUrl: string): ModelError {
  const what = attemptFailureText(failure);
  const retryable = isRetryable(failure);
  const tries = retryable ? `; gave up after ${attempts} attempt${attempts === 1 ? "" : "s"}` : "";
  const status = failure.kind === "http" ? failure.status : undefined;
  const type = failure.kind === "connection" ? undefined : failure.errorType;

  if (failure.kind === "connection") {
    return new ModelError(
      `Could not get an answer from the Anthropic API at ${baseUrl} (${what})${tries}. ` +
        "Check your network connection and the base URL (models.json or ANTHROPIC_BASE_URL).",
      undefined,
      true,
    );
  }
  if (status === 401 || type === "authentication_error") {
    return new ModelError(
      `Anthropic did not accept the credentials (${what}). ` +
        "Check ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN), or run `garuda setup` to store a valid key.",
      status,
    );
  }
  if (status === 403 || type === "permission_error") {
    return new ModelError(
      `Anthropic refused the request (${what}). Check that this API key may use the ` +
        `model, or run \`garuda setup\` with another key.`,
      status,
    );
  }
  if (status === 404 || type === "not_found_error") {
    return new ModelError(
      `Anthropic did not find what was asked for (${what}). ` +
        `Check the model id in ~/.garuda/models.json (\`garuda models\` lists them) and the base URL ${baseUrl}.`,
      status,
    );
  }
  if (status === 402 || type === "billing_error") {
    return new ModelError(
      `Anthropic declined the request for billing reasons (${what}). Check your plan ` +
        `and billing in the Anthropic Console.`,
      status,
    );
  }
  if (status === 413 || type === "request_too_large") {
    return new ModelError(
      `The request is too large for Anthropic (${what}). Compact the conversation or start a new session.`,
      status,
    );
  }
  if (status === 429 || type === "rate_limit_error") {
    return new ModelError(
      `Anthropic kept rate-limiting the requests (${what})${tries}. Wait a minute and ` +
        `try again, or check your rate limits in the Anthropic Console.`,
      status,
      retryable,
    );
  }
  if (status === 529 || type === "overloaded_error") {
    return new ModelError(
      `Anthropic is overloaded (${what})${tries}. Try again in a few minutes, or switch to another model.`,
      status,
      retryable,
    );
  }
  if ((status !== undefined && status >= 500) || failure.kind === "stream") {
    return new ModelError(`Anthropic had a server error (${what})${tries}. Try again shortly.`, status, retryable);
  }
  if (status === 400 || type === "invalid_request_error") {
    return new ModelError(
      `Anthropic rejected the request as invalid (${what}). If the conversation is ` +
        `too long, start a new session (in the terminal chat, /compact shortens it ` +
        `instead).`,
      status,
    );
  }
  return new ModelError(`Anthropic returned an error (${what})${tries}.`, status, retryable);
}
