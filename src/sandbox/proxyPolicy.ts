// The egress proxy's decision, as pure functions over rule data: which host and port a sandboxed
// command may reach. Patterns: `example.com` (that host), `*.example.com` (its subdomains, not
// itself), `*` (any name, never an IP literal); each may carry `:port` to allow that port too.
import { isIP } from "node:net";

export interface HostRule {
  /** Canonical host, `*.suffix` or `*`. */
  host: string;
  /** Only this port (besides the open ports) when set. */
  port?: number;
}

export type Verdict =
  | { kind: "allow"; rule: HostRule; listed: boolean }
  | { kind: "deny"; reason: string }
  | { kind: "ask" };

export interface PolicyState {
  /** The configured allowlist. */
  allow: HostRule[];
  /** Always refused, whatever else says. */
  block: HostRule[];
  /** Hosts the user allowed for this session. */
  session: HostRule[];
  /** Ports any allowed host may use (80 and 443). */
  ports: number[];
  /** Refuse unknown hosts without asking. */
  strict: boolean;
  canAsk: boolean;
}

/** Lower case, no trailing dot, no IPv6 brackets. */
export function canonicalHost(host: string): string {
  return host
    .trim()
    .toLowerCase()
    .replace(/\.$/, "")
    .replace(/^\[(.*)\]$/, "$1");
}

const HOSTNAME = /^(?=.{1,253}$)[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*$/;

/** A host a request may name: a DNS name or an IP literal. */
function isValidHost(host: string): boolean {
  return isIP(host) !== 0 || HOSTNAME.test(host);
}

/** Parses `host`, `*.host`, `*`, `host:port`, `1.2.3.4:80`, `[::1]:8080`. Throws on anything else. */
export function parseHostRule(entry: string): HostRule {
  const text = entry.trim().toLowerCase();
  let host = text;
  let port: number | undefined;
  const withPort = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(text);
  if (withPort) {
    host = withPort[1] as string;
    port = Number(withPort[2]);
    if (port < 1 || port > 65535) throw new Error(`invalid port in host pattern "${entry}"`);
  }
  host = canonicalHost(host);
  const name = host.startsWith("*.") ? host.slice(2) : host;
  if (host !== "*" && !isValidHost(name)) throw new Error(`invalid host pattern "${entry}"`);
  if (host.startsWith("*.") && isIP(name) !== 0) throw new Error(`a wildcard cannot cover an IP address: "${entry}"`);
  return port === undefined ? { host } : { host, port };
}

export function hostMatches(rule: HostRule, host: string): boolean {
  if (rule.host === "*") return isIP(host) === 0;
  if (rule.host.startsWith("*.")) return host.endsWith(rule.host.slice(1)) && host.length > rule.host.length - 1;
  return rule.host === host;
}

const covers = (rule: HostRule, host: string, port: number) =>
  hostMatches(rule, host) && (rule.port === undefined || rule.port === port);

/**
 * The decision for a connection to host:port, first match wins: blocked → deny; a port that is
 * neither open (80/443) nor named with this host → deny; an IP literal not listed as such → deny;
 * allowlist or session rule → allow; strict → deny; else ask (when someone can answer).
 */
export function decideHost(state: PolicyState, rawHost: string, port: number): Verdict {
  const host = canonicalHost(rawHost);
  if (!isValidHost(host)) return { kind: "deny", reason: `"${rawHost}" is not a valid host name` };
  if (state.block.some((rule) => hostMatches(rule, host)))
    return { kind: "deny", reason: `${host} is blocked by policy` };
  const named = [...state.allow, ...state.session].filter((rule) => hostMatches(rule, host));
  if (!state.ports.includes(port) && !named.some((rule) => rule.port === port)) {
    return {
      kind: "deny",
      reason: `port ${port} is not allowed (only ${state.ports.join(", ")}, or a port listed with the host)`,
    };
  }
  const listed = state.allow.find((rule) => covers(rule, host, port));
  if (listed) return { kind: "allow", rule: listed, listed: listed.host === host };
  const session = state.session.find((rule) => covers(rule, host, port));
  if (session) return { kind: "allow", rule: session, listed: false };
  if (isIP(host) !== 0) return { kind: "deny", reason: `IP address ${host} is refused unless it is in the allowlist` };
  if (state.strict) return { kind: "deny", reason: `${host} is not in the network allowlist` };
  return state.canAsk ? { kind: "ask" } : { kind: "deny", reason: `${host} is not in the network allowlist` };
}

function ipv4Local(ip: string): boolean {
  const [a, b] = ip.split(".").map(Number);
  return a === 127 || a === 0 || (a === 169 && b === 254) || ip === "100.100.100.200";
}

/**
 * Addresses a name must not lead to unless the exact name is in the allowlist (DNS rebinding onto
 * the user's own services or a cloud metadata endpoint): loopback, unspecified, link-local, metadata.
 */
export function isLocalAddress(ip: string): boolean {
  const lower = ip.toLowerCase();
  if (isIP(lower) === 4) return ipv4Local(lower);
  const embedded = embeddedIpv4(lower);
  if (embedded !== undefined) return ipv4Local(embedded);
  return lower === "::1" || lower === "::" || /^fe[89ab][0-9a-f]:/.test(lower) || lower === "fd00:ec2::254";
}

/**
 * The IPv4 address inside an IPv4-mapped or -compatible IPv6 address, however it is written:
 * `::ffff:127.0.0.1`, `::ffff:7f00:1` (the form URL parsing gives), `0:0:0:0:0:ffff:a9fe:a9fe`, `::127.0.0.1`.
 */
function embeddedIpv4(ip: string): string | undefined {
  const expanded = expandIpv6(ip);
  if (!expanded) return undefined;
  const groups = expanded.slice(0, 5);
  const sixth = expanded[5];
  if (!groups.every((group) => group === 0) || (sixth !== 0xffff && sixth !== 0)) return undefined;
  const [high, low] = [expanded[6] ?? 0, expanded[7] ?? 0];
  if (sixth === 0 && high === 0) return undefined; // `::` and `::1` are not IPv4
  return [high >> 8, high & 255, low >> 8, low & 255].join(".");
}

/** The eight 16-bit groups of an IPv6 address (a dotted IPv4 tail allowed), or undefined. */
function expandIpv6(ip: string): number[] | undefined {
  if (isIP(ip) !== 6) return undefined;
  let text = ip;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split("::") as [string, string | undefined];
  const part = (s: string | undefined) => (s ? s.split(":").map((group) => parseInt(group, 16)) : []);
  const left = part(head);
  const right = part(tail);
  const fill = tail === undefined ? [] : new Array(8 - left.length - right.length).fill(0);
  const groups = [...left, ...fill, ...right];
  return groups.length === 8 ? groups : undefined;
}
