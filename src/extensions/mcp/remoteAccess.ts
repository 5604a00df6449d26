// Whether Garuda may reach a remote MCP server's address: the egress proxy's own host policy
// (src/sandbox/proxyPolicy.ts), so a remote server is held to the rules a sandboxed command is.
// The team policy's blockedHosts and strictAllowlist bind every server; a project's server also
// gets no IP literal, other port, loopback or link-local/metadata address (by name or by what
// the name resolves to) unless the user's ~/.garuda/mcp.json lists it in projectServers.allowHosts.
// The user's own servers count as listed (the user wrote the address). Every request of a
// server's transports goes through `fetch` here: checked again, only to the approved origin,
// and no redirect is followed by fetch itself (the SDK follows same-origin ones through it).
// A name is resolved once per request, and the request connects to the address that passed the
// check (the Host header and the TLS server name stay the name's): were it resolved again by
// the HTTP client, a DNS server that answers a public address to the check and 127.0.0.1 to
// the connection (DNS rebinding) would reach this computer.
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import {
  canonicalHost,
  decideHost,
  hostMatches,
  isLocalAddress,
  parseHostRule,
  type PolicyState,
} from "../../sandbox/proxyPolicy.ts";
import type { RemoteServerConfig } from "./config.ts";

export interface EgressRules {
  /** The team policy's network.allow, presets expanded. */
  allow: readonly string[];
  blocked: readonly string[];
  strict: boolean;
  /** The permission engine's refusal for this host (its deny rules, the strict allowlist): the reason, or undefined. */
  veto?: (host: string, port: number, server: string) => string | undefined;
  /** Name resolution (tests). Default the system resolver. */
  resolve?: (host: string) => Promise<string[]>;
}

/** Why an address is refused, and whether the user's allowHosts can change that. */
export interface AddressRefusal {
  host: string;
  port: number;
  reason: string;
  /** By the team policy or a deny rule: no allowHosts entry helps. */
  byPolicy: boolean;
}

export type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

const LOOPBACK_NAME = /(^|\.)localhost$/;

/** What a local IP address is, for a refusal. */
function localReason(ip: string): string {
  const loopback = /^(127\.|::1$|::ffff:127\.)/.test(ip);
  return loopback
    ? `${ip} is this computer (a loopback address)`
    : `${ip} is a link-local or metadata address, where cloud credentials are served`;
}

async function systemResolve(host: string): Promise<string[]> {
  const answers = await lookup(host, { all: true, verbatim: true });
  return answers.map((answer) => answer.address);
}

function target(url: URL): { host: string; port: number } {
  const host = canonicalHost(url.hostname);
  const port = url.port === "" ? (url.protocol === "http:" ? 80 : 443) : Number(url.port);
  return { host, port };
}

/** `host:port` as a host rule spells it. */
export const hostPort = (host: string, port: number) => (isIP(host) === 6 ? `[${host}]:${port}` : `${host}:${port}`);

export class RemoteAccess {
  readonly #rules: EgressRules;
  readonly #projectHosts: readonly string[];

  /** `projectHosts`: the user's projectServers.allowHosts. */
  constructor(rules: EgressRules, projectHosts: readonly string[]) {
    this.#rules = rules;
    this.#projectHosts = projectHosts;
  }

  #state(config: RemoteServerConfig): PolicyState {
    const own = target(new URL(config.url));
    const extra = config.scope === "user" ? [hostPort(own.host, own.port)] : this.#projectHosts;
    return {
      allow: (this.#rules.strict ? this.#rules.allow : [...this.#rules.allow, ...extra]).map(parseHostRule),
      block: this.#rules.blocked.map(parseHostRule),
      session: [],
      ports: [80, 443],
      strict: this.#rules.strict,
      // The consent (a project's server) or the user's own file (theirs) is the question the proxy would ask.
      canAsk: true,
    };
  }

  /** Why `url` (default: the server's address) may not be reached, before its name is resolved. */
  refusal(config: RemoteServerConfig, url: URL = new URL(config.url)): AddressRefusal | undefined {
    return this.#check(config, url).refusal;
  }

  #check(config: RemoteServerConfig, url: URL): { refusal?: AddressRefusal; listed: boolean } {
    const { host, port } = target(url);
    const state = this.#state(config);
    const refuse = (reason: string, byPolicy: boolean) => ({
      refusal: { host, port, reason, byPolicy },
      listed: false,
    });
    if (state.block.some((rule) => hostMatches(rule, host))) return refuse(`the team policy blocks ${host}`, true);
    const verdict = decideHost(state, host, port);
    if (verdict.kind === "deny" && state.strict && !state.allow.some((rule) => hostMatches(rule, host))) {
      return refuse(`the team policy's strict network allowlist does not list ${host}`, true);
    }
    // This computer or a metadata address, not named exactly: said as such, before any port rule.
    const local = LOOPBACK_NAME.test(host)
      ? `${host} is this computer (a loopback address)`
      : isIP(host) !== 0 && isLocalAddress(host)
        ? localReason(host)
        : undefined;
    if (local !== undefined && !state.allow.some((rule) => rule.host === host)) return refuse(local, false);
    if (verdict.kind === "deny") return refuse(verdict.reason, false);
    const vetoed = this.#rules.veto?.(host, port, config.name);
    // The engine's reason is written for the model; its first sentence names the rule.
    if (vetoed !== undefined) return refuse(vetoed.split(/\.(\s|$)/)[0] ?? vetoed, true);
    return { listed: verdict.kind === "allow" && verdict.listed };
  }

  /**
   * refusal(), then the name resolved: one that leads to a loopback, link-local or metadata address is refused unless
   * listed.
   */
  async resolvedRefusal(
    config: RemoteServerConfig,
    url: URL = new URL(config.url),
  ): Promise<AddressRefusal | undefined> {
    return (await this.#resolved(config, url)).refusal;
  }

  /**
   * The checks of `url` and, when its name had to be resolved for them, the addresses that passed
   * (empty when it resolved to none). `addresses` is undefined when no name was resolved: an IP
   * literal, or an address the user listed (any address it leads to is theirs).
   */
  async #resolved(
    config: RemoteServerConfig,
    url: URL,
  ): Promise<{ refusal?: AddressRefusal; addresses?: readonly string[] }> {
    const checked = this.#check(config, url);
    if (checked.refusal) return { refusal: checked.refusal };
    if (checked.listed) return {};
    const { host, port } = target(url);
    if (isIP(host) !== 0) return {};
    const addresses = await (this.#rules.resolve ?? systemResolve)(host).catch(() => [] as string[]);
    const local = addresses.find(isLocalAddress);
    if (local === undefined) return { addresses };
    return {
      refusal: {
        host,
        port,
        reason: `${host} resolves to ${local}: ${localReason(local).replace(/^\S+ is /, "")}`,
        byPolicy: false,
      },
    };
  }

  /**
   * The fetch a server's transports use: each request goes only to the approved origin, passes
   * the checks again (a name that now resolves elsewhere, a policy change), connects to the
   * address the checks passed, and is sent with `redirect: "manual"`, so a redirect is never
   * followed behind the checks' back.
   */
  fetch(config: RemoteServerConfig): FetchLike {
    const origin = new URL(config.url).origin;
    return async (input, init) => {
      const url = new URL(input instanceof URL ? input.href : input);
      if (url.origin !== origin)
        throw new Error(
          `Garuda sends the MCP server "${config.name}"'s requests only to ${origin}, the ` +
            `address that was approved, not to ${url.origin}`,
        );
      const { refusal, addresses } = await this.#resolved(config, url);
      if (refusal) throw new Error(`Garuda refused ${hostPort(refusal.host, refusal.port)}: ${refusal.reason}`);
      if (addresses === undefined) return fetch(url, { ...init, redirect: "manual" });
      const address = addresses[0];
      if (address === undefined) throw new Error(`Garuda could not resolve ${url.hostname}, the MCP server's address`);
      return fetch(pinned(url, address), pinnedInit(url, init));
    };
  }
}

/** `url` with its host name replaced by `address` (what the connection goes to). */
function pinned(url: URL, address: string): URL {
  const to = new URL(url.href);
  to.hostname = isIP(address) === 6 ? `[${address}]` : address;
  return to;
}

/**
 * The request's options for a connection to the checked address: the name's Host header and TLS server name (whose
 * certificate is verified), no redirect.
 */
function pinnedInit(url: URL, init: RequestInit | undefined): BunFetchRequestInit {
  const headers = new Headers(init?.headers);
  headers.set("host", url.host);
  return {
    ...init,
    headers,
    redirect: "manual",
    ...(url.protocol === "https:" && { tls: { serverName: url.hostname } }),
  };
}
