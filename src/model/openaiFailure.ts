// What an OpenAI-compatible server's failure says: an attempt's failure (for retry.ts), the error
// body read (bounded) and parsed, whatever shape the server gives it, a mid-stream error chunk,
// and the ModelError the user finally sees, which says what to do about it. Apart from
// openaiCompatible.ts, which makes the requests and retries them.
import { notRunningMessage, type ProviderInfo, providerTitle } from "./catalog.ts";
import { type AttemptFailure, attemptFailureText, isRetryable } from "./retry.ts";
import { ModelError } from "./types.ts";

/** What the client says about the provider in its messages. */
export type ProviderDescription = Pick<ProviderInfo, "name"> &
  Partial<Pick<ProviderInfo, "title" | "startHint" | "apiKeyEnv">>;

/** An error body longer than this is not read further. */
const MAX_ERROR_BODY = 64 * 1024;

/** What a failure's message names: the server, the provider, and how the client talks to it. */
export interface FailureContext {
  baseUrl: string;
  provider: ProviderDescription;
  textToolCalls: boolean;
  /** The server is on this machine (a refused connection means it is not running). */
  local: boolean;
}

/** One attempt's failure, described for retry.ts; `refused`: nothing listens at the address. */
export class AttemptError extends Error {
  constructor(
    readonly failure: AttemptFailure,
    readonly refused = false,
  ) {
    super(attemptFailureText(failure));
  }
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value.trim().slice(0, 300) : undefined;
}

/** The message and type of an error body: OpenAI's {error: {message, type, code}}, or what other servers send. */
export function errorDetails(body: string): { errorType?: string; message?: string } {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    const message = text(body.replace(/<[^>]*>/g, " ").replace(/\s+/g, " "));
    return message ? { message } : {};
  }
  if (typeof value !== "object" || value === null) return {};
  const outer = value as Record<string, unknown>;
  const inner = typeof outer.error === "object" && outer.error !== null ? (outer.error as Record<string, unknown>) : {};
  const message = text(inner.message) ?? text(outer.error) ?? text(outer.message) ?? text(outer.detail);
  const errorType = text(inner.type) ?? text(inner.code) ?? text(outer.type);
  return { ...(message && { message }), ...(errorType && { errorType }) };
}

/** A mid-stream error chunk ({"error": {...}}, as OpenRouter sends one) as a failure. */
export function streamFailure(error: unknown): AttemptFailure {
  const details = errorDetails(JSON.stringify({ error }));
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  // A numeric code is the HTTP status the upstream provider answered.
  if (typeof code === "number" && code >= 400 && code < 600) return { kind: "http", status: code, ...details };
  return { kind: "stream", ...(details.message && { message: details.message }) };
}

/** The start of an error response's body (at most MAX_ERROR_BODY), for its message. */
export async function readErrorBody(response: Response): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let body = "";
  try {
    while (body.length < MAX_ERROR_BODY) {
      const { done, value } = await reader.read();
      if (done) break;
      body += decoder.decode(value, { stream: true });
    }
  } finally {
    reader.cancel().catch(() => {});
  }
  return body;
}

const CONTEXT_OVERFLOW = /context|too long|too many tokens|maximum.*tokens|exceeds/i;
const NO_TOOLS = /tool/i;

/** The error the caller shows: what happened, after how many attempts, and what to do. */
export function failureError(
  ctx: FailureContext,
  failure: AttemptFailure,
  attempts: number,
  model: string,
  refused = false,
): ModelError {
  const what = attemptFailureText(failure);
  const retryable = isRetryable(failure) && !(refused && ctx.local);
  const tries = retryable ? `; gave up after ${attempts} attempt${attempts === 1 ? "" : "s"}` : "";
  const title = providerTitle(ctx.provider);
  const { name, apiKeyEnv } = ctx.provider;
  const spec = `${name}/${model}`;
  const modelsFile = "~/.garuda/models.json";

  if (failure.kind === "connection") {
    if (refused && ctx.local) return new ModelError(notRunningMessage(ctx.provider, ctx.baseUrl));
    const check = ctx.local ? "Check that the server is running" : "Check your network connection";
    return new ModelError(
      `Could not get an answer from ${title} at ${ctx.baseUrl} (${what})${tries}. ` +
        `${check}, and the provider's "baseUrl" in ${modelsFile}.`,
      undefined,
      retryable,
    );
  }
  const status = failure.kind === "http" ? failure.status : undefined;
  if (status !== undefined && status >= 300 && status < 400) {
    return new ModelError(
      `${title} answered ${what}. ` +
        `Put the address it redirects to as "baseUrl" of the provider "${name}" in ${modelsFile}.`,
      status,
    );
  }
  if (status === 401) {
    return new ModelError(
      apiKeyEnv
        ? `${title} did not accept the key (${what}). Check ${apiKeyEnv}, or run \`garuda setup\` to store a valid key.`
        : `${title} asks for a key (${what}). Name the variable that holds it as "apiKeyEnv" of the provider ` +
            `"${name}" in ${modelsFile}, then run \`garuda setup\`.`,
      status,
    );
  }
  if (status === 403)
    return new ModelError(`${title} refused the request (${what}). Check that this key may use ${model}.`, status);
  if (status === 402)
    return new ModelError(
      `${title} declined the request for billing reasons (${what}). Check your credits and billing with ${title}.`,
      status,
    );
  if (status === 404) {
    return new ModelError(
      `${title} does not know the model "${model}" or the address ${ctx.baseUrl}/chat/completions (${what}). ` +
        "Check the model name (`garuda setup` lists the models the server has) " +
        "and that the base URL ends where the API starts (often /v1).",
      status,
    );
  }
  if (status === 413 || (status === 400 && CONTEXT_OVERFLOW.test(failure.message ?? ""))) {
    return new ModelError(
      `The request does not fit in the model's context (${what}). ` +
        "Compact the conversation (/compact) or start a new one; " +
        `if the server gives ${model} a larger window, set its "contextWindow" (and "maxTokens") ` +
        `for "${spec}" under "models" in ${modelsFile}.`,
      status,
    );
  }
  if (status === 429) {
    return new ModelError(
      `${title} kept rate-limiting the requests (${what})${tries}. Wait a minute and try again.`,
      status,
      retryable,
    );
  }
  if ((status !== undefined && status >= 500) || failure.kind === "stream") {
    return new ModelError(
      `${title} had a server error (${what})${tries}. ` +
        `Try again shortly${ctx.local ? ", and look at the server's own log" : ""}.`,
      status,
      retryable,
    );
  }
  if (status === 400 && !ctx.textToolCalls && NO_TOOLS.test(failure.message ?? "")) {
    return new ModelError(
      `${title} rejected the request (${what}). ` +
        `If ${model} cannot call tools, set "textToolCalls": true for "${spec}" under "models" in ${modelsFile}.`,
      status,
    );
  }
  if (status === 400) return new ModelError(`${title} rejected the request as invalid (${what}).`, status);
  return new ModelError(`${title} returned an error (${what})${tries}.`, status, retryable);
}
