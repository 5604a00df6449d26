// The Anthropic Messages API client: the one file that imports @anthropic-ai/sdk. The SDK does
// HTTP and SSE framing only (its own retries off); this file streams one response per attempt,
// retries by the policy in retry.ts, and hands events to the assembler in anthropicStream.ts.
import { format } from "node:util";
import Anthropic, { APIConnectionError, APIError } from "@anthropic-ai/sdk";
import type { MessageCreateParamsStreaming } from "@anthropic-ai/sdk/resources/messages";
import { messageOf } from "../errors/caught.ts";
import { abortError, sleep, throwIfAborted } from "./abort.ts";
import { toWireRequest } from "./anthropicRequest.ts";
import { DEFAULT_IDLE_TIMEOUT_MS, type StreamOptions } from "./clientOptions.ts";
import { IdleWatchdog } from "./idleWatchdog.ts";
import { ResponseAssembler } from "./anthropicStream.ts";
import { sendProblem } from "./requestBound.ts";
import {
  type AttemptFailure,
  DEFAULT_RETRY,
  type RetryOptions,
  attemptFailureText,
  failureError,
  isRetryable,
  retryDelayMs,
} from "./retry.ts";
import type { ModelClient, ModelEvent, ModelRequest } from "./types.ts";
import { ModelError } from "./types.ts";

const ANTHROPIC_DEFAULT_BASE_URL = "https://api.anthropic.com";

export interface AnthropicClientOptions extends StreamOptions {
  /** An API key. Wins over `authToken` when both are given. */
  apiKey?: string;
  /** A bearer token (ANTHROPIC_AUTH_TOKEN), for gateways. */
  authToken?: string;
  /** Decided by the config layer (models.json or ANTHROPIC_BASE_URL); default: Anthropic's API. */
  baseUrl?: string;
}

interface ClientContext {
  /** Undefined when no credential was given: every stream then fails with advice. */
  sdk: Anthropic | undefined;
  baseUrl: string;
  retry: RetryOptions;
  idleTimeoutMs: number;
  /** The SDK's warnings already told (each is said once per client, that is once per session). */
  warned: Set<string>;
}

/** The response ended (cleanly or not) before `message_stop`. */
class IncompleteStreamError extends Error {}

function newSdk(options: AnthropicClientOptions, baseUrl: string): Anthropic | undefined {
  const apiKey = options.apiKey || null;
  const authToken = apiKey ? null : options.authToken || null;
  if (!apiKey && !authToken) return undefined;
  // Every value explicit, so the SDK reads neither ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN nor
  // ANTHROPIC_BASE_URL, nor any credential profile; it logs nothing (stdout may be a protocol).
  return new Anthropic({
    apiKey,
    authToken,
    baseURL: baseUrl,
    maxRetries: 0,
    logLevel: "off",
    openTelemetry: false,
    ...(options.fetch && { fetch: options.fetch }),
  });
}

function errorText(value: unknown): string | undefined {
  if (typeof value === "string" && value.trim() !== "") return value.trim().slice(0, 300);
  return undefined;
}

/** Turns what the SDK threw into a provider-neutral failure. */
function attemptFailure(error: unknown): AttemptFailure {
  if (error instanceof IncompleteStreamError) return { kind: "connection", message: error.message };
  if (error instanceof APIConnectionError) {
    // "Connection error." says little; the cause says which (ECONNREFUSED, a timeout, …).
    return { kind: "connection", message: messageOf(error.cause instanceof Error ? error.cause : error) };
  }
  if (error instanceof APIError) {
    const errorType = error.type ?? undefined;
    const message = error.apiMessage ?? errorText(error.error);
    if (error.status !== undefined) {
      return { kind: "http", status: error.status, errorType, message, headers: error.headers ?? undefined };
    }
    return { kind: "stream", errorType, message };
  }
  return { kind: "connection", message: messageOf(error) };
}

/**
 * Runs `call` with console.warn caught. The SDK prints its per-request warnings (a deprecated
 * model, a deprecated thinking mode) with console.warn at the start of messages.create(), on every
 * request: on stderr that is an error line per request in editors that show stderr to the user
 * (acp.el), or a line across the terminal chat's screen. The call is synchronous up to the point
 * where it returns its promise, so only the SDK's own warnings are caught, and console.warn is
 * back before anything else runs.
 */
export function catchingWarnings<T>(call: () => T): { value: T; warnings: string[] } {
  const warnings: string[] = [];
  const original = console.warn;
  console.warn = (...args: unknown[]) => {
    warnings.push(format(...args));
  };
  try {
    return { value: call(), warnings };
  } finally {
    console.warn = original;
  }
}

/** A warning as one line for a notice: its lines joined as sentences. */
function warningLine(text: string): string {
  const lines = text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");
  return (
    `the Anthropic SDK warns: ` +
    `${lines.map((line, i) => (i < lines.length - 1 && !/[.!?:]$/.test(line) ? `${line}.` : line)).join(" ")}`
  );
}

/** One HTTP request: yields the response's events; throws when it fails. */
async function* attempt(
  sdk: Anthropic,
  body: MessageCreateParamsStreaming,
  signal: AbortSignal,
  idleTimeoutMs: number,
  warned: Set<string>,
): AsyncGenerator<ModelEvent> {
  const watchdog = new IdleWatchdog(signal, idleTimeoutMs);
  try {
    watchdog.rearm();
    const { value: created, warnings } = catchingWarnings(() => sdk.messages.create(body, { signal: watchdog.signal }));
    const stream = await created;
    // Said once the request is under way: a request that fails says why instead.
    for (const warning of warnings) {
      if (warned.has(warning)) continue;
      warned.add(warning);
      yield { type: "warning", text: warningLine(warning) };
    }
    const assembler = new ResponseAssembler();
    for await (const event of stream) {
      watchdog.rearm();
      yield* assembler.push(event);
    }
    // The SDK ends its iterator quietly when the request is aborted.
    if (signal.aborted) throw abortError();
    if (watchdog.stalled)
      throw new IncompleteStreamError(`the model sent nothing for ${Math.round(idleTimeoutMs / 1000)} s`);
    if (!assembler.complete) throw new IncompleteStreamError("the response stream ended before message_stop");
    yield assembler.finish();
  } catch (error) {
    if (watchdog.stalled && !signal.aborted)
      throw new IncompleteStreamError(`the model sent nothing for ${Math.round(idleTimeoutMs / 1000)} s`);
    throw error;
  } finally {
    watchdog.dispose();
  }
}

async function* streamWithRetries(
  context: ClientContext,
  request: ModelRequest,
  signal: AbortSignal,
): AsyncGenerator<ModelEvent> {
  throwIfAborted(signal);
  const sdk = context.sdk;
  if (!sdk) {
    throw new ModelError(
      "No Anthropic credentials. Set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN), or run `garuda setup`.",
    );
  }
  // Our wire types mirror the SDK's params; the SDK's are stricter only where ours stay open
  // (a tool's JSON schema, a server tool result's block type).
  const body = { ...toWireRequest(request), stream: true } as MessageCreateParamsStreaming;
  // Over the request size or image bounds: never sent (the API would refuse it, and every request after it).
  const tooLarge = sendProblem(request.messages, () => body, "Anthropic");
  if (tooLarge !== undefined) throw new ModelError(tooLarge);
  const { retry } = context;
  for (let attemptNumber = 1; ; attemptNumber++) {
    throwIfAborted(signal);
    let failure: AttemptFailure;
    try {
      yield* attempt(sdk, body, signal, context.idleTimeoutMs, context.warned);
      return;
    } catch (error) {
      if (signal.aborted) throw abortError();
      if (error instanceof ModelError) throw error;
      failure = attemptFailure(error);
    }
    if (!isRetryable(failure) || attemptNumber >= retry.maxAttempts) {
      throw failureError(failure, attemptNumber, context.baseUrl);
    }
    const delayMs = retryDelayMs(failure, attemptNumber, retry);
    yield { type: "retry", attempt: attemptNumber + 1, delayMs, reason: attemptFailureText(failure) };
    await sleep(delayMs, signal);
  }
}

/** A ModelClient for Anthropic's Messages API (or a gateway that speaks it). */
export function createAnthropicClient(options: AnthropicClientOptions = {}): ModelClient {
  const baseUrl = (options.baseUrl || ANTHROPIC_DEFAULT_BASE_URL).replace(/\/+$/, "");
  const retry: RetryOptions = { ...DEFAULT_RETRY, ...options.retry };
  retry.maxAttempts = Math.max(1, Math.floor(retry.maxAttempts));
  const idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  const context: ClientContext = { sdk: newSdk(options, baseUrl), baseUrl, retry, idleTimeoutMs, warned: new Set() };
  return { stream: (request, signal) => streamWithRetries(context, request, signal) };
}
