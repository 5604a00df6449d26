import { messageOf } from "../../errors/caught.ts";
import type { ProviderInfo } from "../../model/catalog.ts";
import { ANTHROPIC_API_URL } from "./choices.ts";

/** The version header Anthropic's API (and compatible gateways) require. */
const ANTHROPIC_VERSION = "2023-06-01";
export const CHECK_TIMEOUT_MS = 10_000;

export interface KeyToCheck {
  /** apiKey goes in x-api-key; authToken in Authorization: Bearer. */
  kind: "apiKey" | "authToken";
  value: string;
}

export type KeyCheck =
  | { result: "ok"; url: string }
  | { result: "refused"; url: string; status: number }
  | { result: "unchecked"; url: string; reason: string };

/** The provider's API, when it is not Anthropic's (an OpenAI-compatible server). */
export type CheckApi = Pick<ProviderInfo, "type" | "keyCheckPath">;

export function checkUrl(baseUrl: string | undefined, api?: CheckApi): string {
  const base = (baseUrl ?? ANTHROPIC_API_URL).replace(/\/+$/, "");
  if (api?.type === "openai-compatible") return `${base}${api.keyCheckPath ?? "/models"}`;
  return `${base}/v1/models`;
}

export function checkHeaders(key: KeyToCheck, api?: CheckApi): Record<string, string> {
  if (api?.type === "openai-compatible") return { authorization: `Bearer ${key.value}`, accept: "application/json" };
  const auth: Record<string, string> =
    key.kind === "apiKey" ? { "x-api-key": key.value } : { authorization: `Bearer ${key.value}` };
  return { ...auth, "anthropic-version": ANTHROPIC_VERSION, accept: "application/json" };
}

/**
 * One small free request that shows whether the provider takes the key: GET /v1/models
 * (an OpenAI-compatible provider: GET {baseUrl}/models, or its keyCheckPath), no
 * redirects followed, a time limit. 401 and 403 mean refused; anything else that is not a
 * success, and no answer at all, mean it could not be checked. `signal` cancels it (Ctrl-C),
 * which rejects with the signal's reason.
 */
export async function checkKey(options: {
  baseUrl: string | undefined;
  key: KeyToCheck;
  api?: CheckApi;
  timeoutMs?: number;
  signal?: AbortSignal;
}): Promise<KeyCheck> {
  const url = checkUrl(options.baseUrl, options.api);
  const timeoutMs = options.timeoutMs ?? CHECK_TIMEOUT_MS;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([timeout, options.signal]) : timeout;
  let response: Response;
  try {
    response = await fetch(url, {
      method: "GET",
      headers: checkHeaders(options.key, options.api),
      redirect: "manual",
      signal,
    });
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason;
    if (timeout.aborted)
      return {
        result: "unchecked",
        url,
        reason: `${url} gave no answer within ${timeoutMs >= 1000 ? `${timeoutMs / 1000} s` : `${timeoutMs} ms`}`,
      };
    const detail = messageOf(error);
    return { result: "unchecked", url, reason: `${url} could not be reached (${detail})` };
  }
  // The body is not needed; dropping it frees the connection.
  await response.body?.cancel().catch(() => undefined);
  const status = response.status;
  if (status >= 200 && status < 300) return { result: "ok", url };
  if (status === 401 || status === 403) return { result: "refused", url, status };
  if (status >= 300 && status < 400)
    return {
      result: "unchecked",
      url,
      reason: `it answered with a redirect (HTTP ${status}), which Garuda does not follow`,
    };
  return { result: "unchecked", url, reason: `it answered HTTP ${status}` };
}
