// web_fetch: one page, as text. Each hop (≤ 5 redirects) is normalized, its host asked for
// when it is new (the engine asks per host; the first host was asked by the registry), its
// addresses resolved and checked, and the connection pinned to them. Pages are kept for ten
// minutes (at most 50 per session) so paging through a long one does not fetch it again.
import { z } from "zod";
import { messageOf } from "../errors/caught.ts";
import { oneLine } from "../text/visible.ts";
import { VERSION } from "../version.ts";
import type { PlanWithState, Tool, ToolContext, ToolResult } from "./types.ts";
import { type Resolver, checkedAddresses, normalizeUrl, systemResolver, type UrlCheck } from "./webAddress.ts";
import description from "./webFetch.txt" with { type: "text" };

/**
 * The HTTP client and the HTML converter load at the first fetch: they (node:http, zlib, the
 * HTML parser) would otherwise add ~10 ms to every session's start for a tool most turns never use.
 */
const loadWeb = () => Promise.all([import("./webHttp.ts"), import("./htmlMarkdown.ts")]);

const input = z.object({
  url: z.string().min(1).max(8_000).describe("The page's full http(s) URL."),
  start: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe("The character to start at, for the next part of a long page (default 0)."),
  max_chars: z
    .number()
    .int()
    .min(1_000)
    .max(100_000)
    .optional()
    .describe("How many characters to return (default 30000)."),
});
export type WebFetchInput = z.infer<typeof input>;

export interface WebFetchOptions {
  /** Allow loopback addresses (tests; a `web.allowLocalhost` setting). Private ranges stay refused. */
  allowLocalhost?: boolean;
  resolve?: Resolver;
  userAgent?: string;
  timeoutMs?: number;
  maxBytes?: number;
  maxRedirects?: number;
  cacheTtlMs?: number;
  cacheSize?: number;
  now?: () => number;
}

const DEFAULT_MAX_CHARS = 30_000;

interface Page {
  url: string;
  contentType: string;
  title: string | undefined;
  text: string;
  fetchedAt: number;
}

type Fetched = { ok: true; page: Page } | { ok: false; error: string };

function isHtml(contentType: string): boolean {
  return /^(text\/html|application\/xhtml\+xml)\b/i.test(contentType.trim());
}

function attribute(text: string): string {
  return oneLine(text, 300).replace(/&/g, "&amp;").replace(/"/g, "&quot;");
}

async function fetchPage(
  start: URL,
  ctx: ToolContext,
  options: Required<Omit<WebFetchOptions, "now">>,
  now: number,
): Promise<Fetched> {
  const [{ FetchError, decodeBody, requestHop }, { htmlToMarkdown }] = await loadWeb();
  const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(options.timeoutMs)]);
  // Hosts by name, as the engine asks per host (a new port on an approved host does not ask again).
  const hosts = new Set([start.hostname]);
  let url = start;
  for (let hop = 0; ; hop++) {
    if (!hosts.has(url.hostname)) {
      const decision = await ctx.authorize({
        tool: "web_fetch",
        readOnly: true,
        target: { kind: "url", url: url.href },
        title: `Fetch ${url.href}`,
        preview: `${start.href} redirects to ${url.href}`,
      });
      if (decision.outcome !== "allow") {
        const why = decision.outcome === "deny" ? decision.reason : "it was not approved";
        return {
          ok: false,
          error: `The page redirects to ${url.href}, another host, and fetching from it was not allowed: ${why}`,
        };
      }
      hosts.add(url.hostname);
    }
    const checked = await checkedAddresses(url, options.resolve, options.allowLocalhost);
    if (!checked.ok) return checked;
    let response: Awaited<ReturnType<typeof requestHop>>;
    try {
      response = await requestHop({
        url,
        addresses: checked.addresses,
        signal,
        maxBytes: options.maxBytes,
        userAgent: options.userAgent,
      });
    } catch (error) {
      if (ctx.signal.aborted) return { ok: false, error: "Cancelled." };
      if (signal.aborted)
        return {
          ok: false,
          error: `Fetching ${url.href} took longer than ${options.timeoutMs / 1000} s and was stopped.`,
        };
      const message = messageOf(error);
      return { ok: false, error: error instanceof FetchError ? message : `Fetching ${url.href} failed: ${message}` };
    }
    if (response.kind === "redirect") {
      if (hop >= options.maxRedirects)
        return {
          ok: false,
          error: `${start.href} redirects more than ${options.maxRedirects} times; stopped at ${url.href}.`,
        };
      const next = normalizeUrl(response.location, url);
      if (!next.ok)
        return { ok: false, error: `${url.href} redirects to a URL web_fetch does not fetch: ${next.error}` };
      url = next.url;
      continue;
    }
    const raw = decodeBody(response.body, response.contentType);
    const converted = isHtml(response.contentType) ? htmlToMarkdown(raw, url) : { title: undefined, markdown: raw };
    if (response.status >= 400) {
      const excerpt = converted.markdown.trim().slice(0, 2_000);
      return {
        ok: false,
        error:
          `${url.href} answered HTTP ` +
          `${response.status}${response.statusText ? ` ${response.statusText}` : ""}.${excerpt ? `\n${excerpt}` : ""}`,
      };
    }
    return {
      ok: true,
      page: {
        url: url.href,
        contentType: response.contentType.split(";")[0]?.trim() ?? "text/plain",
        title: converted.title,
        text: converted.markdown,
        fetchedAt: now,
      },
    };
  }
}

export function webFetchTool(
  options: WebFetchOptions = {},
): Tool<WebFetchInput, PlanWithState<WebFetchInput, UrlCheck>> {
  const settings: Required<Omit<WebFetchOptions, "now">> = {
    allowLocalhost: options.allowLocalhost ?? false,
    resolve: options.resolve ?? systemResolver,
    userAgent: options.userAgent ?? `Garuda/${VERSION} (web_fetch)`,
    timeoutMs: options.timeoutMs ?? 30_000,
    maxBytes: options.maxBytes ?? 5 * 1024 * 1024,
    maxRedirects: options.maxRedirects ?? 5,
    cacheTtlMs: options.cacheTtlMs ?? 10 * 60_000,
    cacheSize: options.cacheSize ?? 50,
  };
  const now = options.now ?? Date.now;
  const cache = new Map<string, Page>();

  const cached = (key: string): Page | undefined => {
    const page = cache.get(key);
    if (!page) return undefined;
    if (now() - page.fetchedAt > settings.cacheTtlMs) {
      cache.delete(key);
      return undefined;
    }
    return page;
  };
  const remember = (key: string, page: Page) => {
    cache.delete(key);
    cache.set(key, page);
    while (cache.size > settings.cacheSize) cache.delete(cache.keys().next().value as string);
  };

  return {
    name: "web_fetch",
    description,
    input,
    // Fetching changes nothing locally, so fetches of one step may run together; the engine
    // still asks per host (URL targets never pass as read-only).
    readOnly: true,
    plan(args) {
      const normalized = normalizeUrl(args.url);
      const url = normalized.ok ? normalized.url.href : args.url;
      return {
        input: args,
        info: { title: `Fetch ${oneLine(url)}`, kind: "fetch", locations: [] },
        permission: { tool: "web_fetch", readOnly: true, target: { kind: "url", url }, preview: url },
        state: normalized,
      };
    },
    async run({ input: args, state: normalized }, ctx): Promise<ToolResult> {
      if (!normalized.ok) return { output: normalized.error, isError: true };
      const key = normalized.url.href;
      let page = cached(key);
      if (!page) {
        const fetched = await fetchPage(normalized.url, ctx, settings, now());
        if (!fetched.ok) return { output: fetched.error, isError: true };
        page = fetched.page;
        remember(key, page);
      }
      const total = page.text.length;
      const start = args.start ?? 0;
      if (start > 0 && start >= total) {
        return { output: `start ${start} is past the end of the page, which has ${total} characters.`, isError: true };
      }
      const part = page.text.slice(start, start + (args.max_chars ?? DEFAULT_MAX_CHARS));
      const end = start + part.length;
      const title = page.title !== undefined ? ` title="${attribute(page.title)}"` : "";
      const lines = [`<web_result url="${attribute(page.url)}" type="${attribute(page.contentType)}"${title}>`];
      if (page.url !== key) lines.push(`(redirected from ${key})`);
      lines.push(
        `[characters ${total === 0 ? 0 : start + 1}–${end} of ${total}]`,
        "",
        total === 0 ? "(the page has no text)" : part,
        "</web_result>",
      );
      if (end < total)
        lines.push(
          `[Garuda: the page goes on; call web_fetch with the same url and start: ${end} to read the next part.]`,
        );
      const summary = end < total || start > 0 ? `${start + 1}–${end} of ${total} characters` : `${total} characters`;
      return { output: lines.join("\n"), summary };
    },
  };
}
