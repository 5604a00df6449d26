// web_search: Anthropic's server tool. The provider runs the searches inside the model's
// response, so this is not a client Tool: Garuda decides whether to offer it (ModelRequest.
// webSearch, with a per-request cap and domain lists from settings), asks the user once per
// session before the first request that offers it. How its server_tool events read ("Search the
// web: <query>", "5 results") is src/model/serverTools.ts, which the events carry.
//
// Wiring (runtime): one WebSearchGate per session; before each model request,
// `webSearch = await gate.options(authorize, signal)`.
import { WEB_SEARCH_TOOL } from "../model/serverTools.ts";
import type { WebSearchOptions } from "../model/types.ts";
import type { Decision, PermissionRequest } from "../permission/types.ts";

const DEFAULT_MAX_USES = 5;
const MAX_MAX_USES = 20;

/** From settings (user, trusted project) and the team policy. */
export interface WebSearchSettings {
  /** Off unless true. */
  enabled?: boolean;
  /** Searches per model request (1–20, default 5). */
  maxUses?: number;
  /** Only these domains (and their subdomains). Wins over blockedDomains (the API takes one list). */
  allowedDomains?: string[];
  blockedDomains?: string[];
}

const cleanDomains = (domains: string[] | undefined) => [
  ...new Set(
    (domains ?? [])
      .map((d) =>
        d
          .trim()
          .toLowerCase()
          .replace(/^https?:\/\//, "")
          .replace(/\/.*$/, ""),
      )
      .filter((d) => d.length > 0),
  ),
];

/** The request options for these settings; undefined when web search is off. */
export function webSearchOptions(settings: WebSearchSettings): WebSearchOptions | undefined {
  if (settings.enabled !== true) return undefined;
  const maxUses = Math.min(MAX_MAX_USES, Math.max(1, Math.floor(settings.maxUses ?? DEFAULT_MAX_USES)));
  const blocked = cleanDomains(settings.blockedDomains);
  const allowed = cleanDomains(settings.allowedDomains).filter((d) => !blocked.includes(d));
  if (settings.allowedDomains !== undefined && settings.allowedDomains.length > 0) {
    // Every allowed domain is also blocked: searching nothing is the honest result.
    if (allowed.length === 0) return undefined;
    return { maxUses, allowedDomains: allowed };
  }
  return blocked.length > 0 ? { maxUses, blockedDomains: blocked } : { maxUses };
}

/** The consent question: asked once per session, before the first request that offers web search. */
export function webSearchConsentRequest(options: WebSearchOptions): PermissionRequest {
  const scope = options.allowedDomains
    ? `only ${options.allowedDomains.join(", ")}`
    : options.blockedDomains
      ? `all sites except ${options.blockedDomains.join(", ")}`
      : "any site";
  return {
    tool: WEB_SEARCH_TOOL,
    readOnly: false,
    target: { kind: "input" },
    title: "Search the web",
    preview:
      `Anthropic runs the searches the model asks for (up to ` +
      `${options.maxUses ?? DEFAULT_MAX_USES} per request; ${scope}). The queries can ` +
      `contain words from this conversation. Each search costs about $0.01.`,
    question: "Let the model search the web in this session?",
  };
}

type Authorize = (request: PermissionRequest) => Promise<Decision>;

/**
 * The session's web search state: off by settings, not asked yet, allowed, or refused. The user's
 * or the policy's answer holds for the session; a denial for another reason (plan mode, a
 * headless run, a cancelled question) is asked again at the next request.
 */
export class WebSearchGate {
  #state: "unasked" | "allowed" | "refused" = "unasked";
  readonly #options: WebSearchOptions | undefined;

  constructor(settings: WebSearchSettings) {
    this.#options = webSearchOptions(settings);
  }

  get state(): "off" | "unasked" | "allowed" | "refused" {
    return this.#options === undefined ? "off" : this.#state;
  }

  /** The ModelRequest.webSearch for the next request, asking first when needed. */
  async options(authorize: Authorize, signal: AbortSignal): Promise<WebSearchOptions | undefined> {
    const options = this.#options;
    if (options === undefined || this.#state === "refused") return undefined;
    if (this.#state === "allowed") return options;
    if (signal.aborted) return undefined;
    const decision = await authorize(webSearchConsentRequest(options));
    if (decision.outcome === "allow") {
      this.#state = "allowed";
      return options;
    }
    if (
      decision.outcome === "deny" &&
      !signal.aborted &&
      (decision.by === "user" || decision.by === "policy" || decision.by === "rule")
    )
      this.#state = "refused";
    return undefined;
  }
}
