// The client for OpenAI-compatible Chat Completions servers: Ollama, LM Studio, llama.cpp,
// vLLM, OpenRouter, or any server in models.json. Plain fetch and SSE: it streams one response
// per attempt (openaiStream.ts), retries by the policy in retry.ts, and says in every error
// what to do. The request mapping is in openaiRequest.ts, text tool calls in textToolCalls.ts,
// what a failure says in openaiFailure.ts.
import { messageOf } from "../errors/caught.ts";
import { abortError, sleep, throwIfAborted } from "./abort.ts";
import { providerTitle } from "./catalog.ts";
import { sendProblem } from "./requestBound.ts";
import { DEFAULT_IDLE_TIMEOUT_MS, type FetchFunction, type StreamOptions } from "./clientOptions.ts";
import { IdleWatchdog } from "./idleWatchdog.ts";
import {
  AttemptError,
  errorDetails,
  failureError,
  type FailureContext,
  type ProviderDescription,
  readErrorBody,
  streamFailure,
} from "./openaiFailure.ts";
import { toOpenAIRequest, type OpenAIRequest } from "./openaiRequest.ts";
import { ChunkAssembler, sseEvents, type WireChunk, type WireDelta } from "./openaiStream.ts";
import {
  type AttemptFailure,
  DEFAULT_RETRY,
  type RetryOptions,
  attemptFailureText,
  isRetryable,
  retryDelayMs,
} from "./retry.ts";
import { type ModelClient, ModelError, type ModelEvent, type ModelRequest } from "./types.ts";

export interface OpenAICompatibleClientOptions extends StreamOptions {
  /** The API root, e.g. http://127.0.0.1:11434/v1 (requests go to {baseUrl}/chat/completions). */
  baseUrl: string;
  /** Sent as Authorization: Bearer; none for a local server. */
  apiKey?: string;
  /** For messages; default a provider named after the host. */
  provider?: ProviderDescription;
  /** Tools as ```tool_call blocks in the text (models.json textToolCalls). */
  textToolCalls?: boolean;
}

/** A server on this machine may read a long prompt for minutes before its first token. */
const LOCAL_IDLE_TIMEOUT_MS = 600_000;

interface ClientContext extends FailureContext {
  apiKey: string | undefined;
  retry: RetryOptions;
  fetch: FetchFunction;
  idleTimeoutMs: number;
  /** Turned off for good when the server rejects stream_options. */
  includeUsage: boolean;
}

const LOOPBACK = /^(localhost|.+\.localhost|127\.\d+\.\d+\.\d+|\[::1\])$/i;

export function isLocalUrl(url: string): boolean {
  try {
    return LOOPBACK.test(new URL(url).hostname);
  } catch {
    return false;
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

function errorCode(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const own = (error as { code?: unknown }).code;
  if (typeof own === "string") return own;
  const cause = (error as { cause?: { code?: unknown } }).cause;
  return typeof cause?.code === "string" ? cause.code : undefined;
}

/** A non-streamed completion ({choices: [{message, finish_reason}]}) as one chunk. */
function wholeCompletion(body: string): WireChunk {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    throw new AttemptError({
      kind: "stream",
      message: `the server sent a response that is not JSON: ${JSON.stringify(body.slice(0, 80))}`,
    });
  }
  const completion = (typeof value === "object" && value !== null ? value : {}) as {
    choices?: Array<{
      message?: { content?: unknown; reasoning_content?: unknown; tool_calls?: Array<Record<string, unknown>> };
      finish_reason?: unknown;
    }>;
    usage?: WireChunk["usage"];
    error?: unknown;
  };
  if (completion.error !== undefined && completion.error !== null)
    throw new AttemptError(streamFailure(completion.error));
  const choice = completion.choices?.[0];
  if (!choice) throw new AttemptError({ kind: "stream", message: "the server sent a response without choices" });
  const message = choice.message ?? {};
  const delta: WireDelta = {
    ...(typeof message.content === "string" && { content: message.content }),
    ...(typeof message.reasoning_content === "string" && { reasoning_content: message.reasoning_content }),
    ...(Array.isArray(message.tool_calls) && {
      tool_calls: message.tool_calls.map((call, index) => ({ index, ...call })),
    }),
  };
  return {
    choices: [
      { index: 0, delta, finish_reason: typeof choice.finish_reason === "string" ? choice.finish_reason : "stop" },
    ],
    ...(completion.usage && { usage: completion.usage }),
  };
}

function headersFor(ctx: ClientContext): Record<string, string> {
  return {
    "content-type": "application/json",
    accept: "text/event-stream",
    ...(ctx.apiKey && { authorization: `Bearer ${ctx.apiKey}` }),
  };
}

/** One HTTP request: yields the response's events; throws an AttemptError when it fails. */
async function* attempt(ctx: ClientContext, body: OpenAIRequest, signal: AbortSignal): AsyncGenerator<ModelEvent> {
  const watchdog = new IdleWatchdog(signal, ctx.idleTimeoutMs);
  const idle = ctx.idleTimeoutMs >= 1000 ? `${Math.round(ctx.idleTimeoutMs / 1000)} s` : `${ctx.idleTimeoutMs} ms`;
  const stallError = () => new AttemptError({ kind: "connection", message: `the server sent nothing for ${idle}` });
  const json = JSON.stringify(body);
  try {
    watchdog.rearm();
    let response: Response;
    try {
      response = await ctx.fetch(`${ctx.baseUrl}/chat/completions`, {
        method: "POST",
        headers: headersFor(ctx),
        body: json,
        signal: watchdog.signal,
        redirect: "manual",
      });
    } catch (error) {
      if (signal.aborted) throw abortError();
      if (watchdog.stalled) throw stallError();
      const code = errorCode(error);
      const message = messageOf(error);
      throw new AttemptError({ kind: "connection", message }, code === "ECONNREFUSED" || code === "ConnectionRefused");
    }
    if (!response.ok) {
      const details = errorDetails(await readErrorBody(response));
      const location = response.headers.get("location");
      const message =
        response.status >= 300 && response.status < 400
          ? `a redirect${location ? ` to ${location}` : ""}, which Garuda does not follow`
          : details.message;
      throw new AttemptError({
        kind: "http",
        status: response.status,
        headers: response.headers,
        ...(details.errorType && { errorType: details.errorType }),
        ...(message && { message }),
      });
    }
    if (!response.body) throw new AttemptError({ kind: "connection", message: "the response has no body" });
    const assembler = new ChunkAssembler({ textToolCalls: ctx.textToolCalls, requestChars: json.length });
    if (/application\/json/i.test(response.headers.get("content-type") ?? "")) {
      // A server that ignored `stream: true` and sent the whole completion at once.
      yield* assembler.push(wholeCompletion(await response.text()));
      assembler.done();
      yield* assembler.finish();
      return;
    }
    for await (const event of sseEvents(response.body, watchdog.rearm)) {
      const data = event.data.trim();
      if (data === "[DONE]") {
        assembler.done();
        break;
      }
      if (data === "") continue;
      let chunk: WireChunk;
      try {
        chunk = JSON.parse(data) as WireChunk;
      } catch {
        throw new AttemptError({
          kind: "stream",
          message: `the server sent a chunk that is not JSON: ${JSON.stringify(data.slice(0, 80))}`,
        });
      }
      if (typeof chunk !== "object" || chunk === null) continue;
      if (chunk.error !== undefined && chunk.error !== null) throw new AttemptError(streamFailure(chunk.error));
      yield* assembler.push(chunk);
    }
    if (signal.aborted) throw abortError();
    if (watchdog.stalled) throw stallError();
    if (!assembler.complete)
      throw new AttemptError({ kind: "connection", message: "the response stream ended before [DONE]" });
    yield* assembler.finish();
  } catch (error) {
    if (signal.aborted) throw abortError();
    if (watchdog.stalled && !(error instanceof AttemptError)) throw stallError();
    if (error instanceof AttemptError || error instanceof ModelError) throw error;
    // The body broke off (a reset connection) while it was read.
    throw new AttemptError({ kind: "connection", message: messageOf(error) });
  } finally {
    // close: ends the connection if the body was not read to its end (an error, or the caller stopped).
    watchdog.dispose({ close: true });
  }
}

function isStreamOptionsRejection(failure: AttemptFailure): boolean {
  return (
    failure.kind === "http" &&
    failure.status >= 400 &&
    failure.status < 500 &&
    /stream_options|include_usage/i.test(failure.message ?? "")
  );
}

async function* streamWithRetries(
  ctx: ClientContext,
  request: ModelRequest,
  signal: AbortSignal,
): AsyncGenerator<ModelEvent> {
  throwIfAborted(signal);
  // Over the request size or image bounds: never sent (it would be refused, and every request after it).
  const tooLarge = sendProblem(
    request.messages,
    () => toOpenAIRequest(request, { textToolCalls: ctx.textToolCalls, includeUsage: ctx.includeUsage }),
    providerTitle(ctx.provider),
  );
  if (tooLarge !== undefined) throw new ModelError(tooLarge);
  const { retry } = ctx;
  for (let attemptNumber = 1; ; attemptNumber++) {
    throwIfAborted(signal);
    const body = toOpenAIRequest(request, { textToolCalls: ctx.textToolCalls, includeUsage: ctx.includeUsage });
    let failure: AttemptFailure;
    let refused = false;
    try {
      yield* attempt(ctx, body, signal);
      return;
    } catch (error) {
      if (signal.aborted) throw abortError();
      if (!(error instanceof AttemptError)) throw error;
      failure = error.failure;
      refused = error.refused;
    }
    // A server that does not take stream_options: ask again without it, and estimate usage.
    if (ctx.includeUsage && isStreamOptionsRejection(failure)) {
      ctx.includeUsage = false;
      attemptNumber--;
      continue;
    }
    // Nothing listens on this machine: no point waiting for it.
    if (refused && ctx.local) throw failureError(ctx, failure, attemptNumber, request.model, true);
    if (!isRetryable(failure) || attemptNumber >= retry.maxAttempts)
      throw failureError(ctx, failure, attemptNumber, request.model, refused);
    const delayMs = retryDelayMs(failure, attemptNumber, retry);
    yield { type: "retry", attempt: attemptNumber + 1, delayMs, reason: attemptFailureText(failure) };
    await sleep(delayMs, signal);
  }
}

/** A ModelClient for an OpenAI-compatible Chat Completions API. */
export function createOpenAICompatibleClient(options: OpenAICompatibleClientOptions): ModelClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  const retry: RetryOptions = { ...DEFAULT_RETRY, ...options.retry };
  retry.maxAttempts = Math.max(1, Math.floor(retry.maxAttempts));
  const local = isLocalUrl(baseUrl);
  const ctx: ClientContext = {
    baseUrl,
    apiKey: options.apiKey || undefined,
    provider: options.provider ?? { name: hostOf(baseUrl) },
    textToolCalls: options.textToolCalls ?? false,
    retry,
    fetch: options.fetch ?? fetch,
    idleTimeoutMs: options.idleTimeoutMs ?? (local ? LOCAL_IDLE_TIMEOUT_MS : DEFAULT_IDLE_TIMEOUT_MS),
    local,
    includeUsage: true,
  };
  return { stream: (request, signal) => streamWithRetries(ctx, request, signal) };
}
