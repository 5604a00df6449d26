// The little HTTP the egress proxy speaks: parse a request head (headReader.ts finds it), tell
// CONNECT from an absolute-URI request, say how a plain request's body is framed, rewrite the
// request for the origin server, and build short replies. The proxy forwards only what it parsed:
// the origin's head is rebuilt from the parsed fields, so the origin cannot read it another way.
import { isIP } from "node:net";

export interface RequestHead {
  method: string;
  target: string;
  version: string;
  headers: Array<[name: string, value: string]>;
}

/** Longest request head accepted. */
export const MAX_HEAD_BYTES = 64 * 1024;

/** A header name (RFC 9110 token): no space before the colon, no control characters. */
const FIELD_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Control characters other than a tab: a CR or LF in a value would start another header at the origin. */
const CONTROL = /[\x00-\x08\x0a-\x1f\x7f]/;

export function parseRequestHead(text: string): RequestHead | undefined {
  const lines = text.split("\r\n");
  const request = /^([A-Z]+) (\S+) (HTTP\/1\.[01])$/.exec(lines[0] ?? "");
  if (!request || CONTROL.test(request[2] as string)) return undefined;
  const headers: Array<[string, string]> = [];
  for (const line of lines.slice(1)) {
    if (line === "") continue;
    const colon = line.indexOf(":");
    const name = line.slice(0, colon);
    const value = line.slice(colon + 1).trim();
    // A folded line (obs-fold), a name with spaces, a value with a bare CR or LF: refused whole.
    if (colon <= 0 || !FIELD_NAME.test(name) || CONTROL.test(value)) return undefined;
    headers.push([name, value]);
  }
  return { method: request[1] as string, target: request[2] as string, version: request[3] as string, headers };
}

export function header(head: RequestHead, name: string): string | undefined {
  const lower = name.toLowerCase();
  return head.headers.find(([key]) => key.toLowerCase() === lower)?.[1];
}

function headerValues(head: RequestHead, name: string): string[] {
  const lower = name.toLowerCase();
  return head.headers.filter(([key]) => key.toLowerCase() === lower).map(([, value]) => value);
}

export type ProxyTarget =
  | { kind: "connect"; host: string; port: number }
  | { kind: "http"; host: string; port: number; path: string }
  | { kind: "invalid"; reason: string };

/** `host:port` or `[v6]:port`. */
function authority(text: string): { host: string; port: number } | undefined {
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+):(\d{1,5})$/.exec(text);
  const port = Number(match?.[2]);
  if (!match || port < 1 || port > 65535) return undefined;
  return { host: (match[1] as string).replace(/^\[(.*)\]$/, "$1"), port };
}

export function proxyTarget(head: RequestHead): ProxyTarget {
  if (head.method === "CONNECT") {
    const target = authority(head.target);
    return target
      ? { kind: "connect", ...target }
      : { kind: "invalid", reason: `CONNECT needs host:port, got "${head.target}"` };
  }
  let url: URL;
  try {
    url = new URL(head.target);
  } catch {
    return { kind: "invalid", reason: "a proxy request needs an absolute http:// URL or CONNECT" };
  }
  if (url.protocol !== "http:")
    return { kind: "invalid", reason: `${url.protocol} URLs go through CONNECT, not a plain request` };
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  return { kind: "http", host, port: url.port ? Number(url.port) : 80, path: `${url.pathname}${url.search}` };
}

/** How a plain request's body ends (RFC 9112 6.3): after `length` bytes, or at the last chunk. */
export type BodyFraming =
  | { kind: "length"; length: number }
  | { kind: "chunked" }
  | { kind: "invalid"; reason: string };

/**
 * The body's framing, refusing every head two parsers could read differently (request smuggling:
 * the rest of the body read as a second request by the origin): both Content-Length and
 * Transfer-Encoding, Content-Lengths that differ, a coding other than plain `chunked`, or chunked
 * in HTTP/1.0 (where an origin may ignore it). No framing header: no body.
 */
export function bodyFraming(head: RequestHead): BodyFraming {
  const codings = headerValues(head, "transfer-encoding").flatMap((value) => value.split(","));
  const lengths = headerValues(head, "content-length").flatMap((value) => value.split(","));
  if (codings.length > 0) {
    if (lengths.length > 0) return { kind: "invalid", reason: "both Content-Length and Transfer-Encoding" };
    if (head.version !== "HTTP/1.1") return { kind: "invalid", reason: "Transfer-Encoding in an HTTP/1.0 request" };
    if (codings.length !== 1 || codings[0]?.trim().toLowerCase() !== "chunked")
      return { kind: "invalid", reason: "only Transfer-Encoding: chunked is supported" };
    return { kind: "chunked" };
  }
  const distinct = new Set(lengths.map((value) => value.trim()));
  if (distinct.size > 1) return { kind: "invalid", reason: "conflicting Content-Length values" };
  const [text] = distinct;
  if (text === undefined) return { kind: "length", length: 0 };
  const length = Number(text);
  if (!/^\d{1,15}$/.test(text)) return { kind: "invalid", reason: `invalid Content-Length "${text}"` };
  return { kind: "length", length };
}

/**
 * Headers the origin does not get: the proxy's own and the hop's (the origin is asked to close
 * after one request, and no upgrade may turn the connection into something the proxy cannot read),
 * the client's Host and framing (rebuilt below), and the headers some front ends take a host from.
 */
const DROPPED = new Set([
  "proxy-authorization",
  "proxy-connection",
  "connection",
  "keep-alive",
  "upgrade",
  "host",
  "content-length",
  "transfer-encoding",
  "forwarded",
  "x-forwarded-host",
  "x-forwarded-server",
  "x-host",
  "x-http-host-override",
  "x-original-host",
]);

/** `host` or `host:port` as a Host header says it (IPv6 in brackets; the port unless it is 80). */
export function hostHeader(host: string, port: number): string {
  const name = isIP(host) === 6 ? `[${host}]` : host;
  return port === 80 ? name : `${name}:${port}`;
}

/**
 * The head sent to the origin: origin-form target; Host is the host the policy allowed, whatever
 * the client's Host said (RFC 9112 3.2.2: a proxy given an absolute URI replaces Host with its
 * host); the body's framing as the proxy reads it; one request per connection.
 */
export function originHead(head: RequestHead, path: string, host: string, framing: BodyFraming): string {
  const headers = head.headers.filter(([name]) => !DROPPED.has(name.toLowerCase()));
  headers.unshift(["Host", host]);
  if (framing.kind === "chunked") headers.push(["Transfer-Encoding", "chunked"]);
  else if (framing.kind === "length" && (framing.length > 0 || header(head, "content-length") !== undefined))
    headers.push(["Content-Length", String(framing.length)]);
  headers.push(["Connection", "close"]);
  return `${head.method} ${path || "/"} ${head.version}\r\n${headers.map(([n, v]) => `${n}: ${v}\r\n`).join("")}\r\n`;
}

/** A complete reply that ends the conversation. */
export function reply(status: number, reason: string, body: string, extra: Record<string, string> = {}): string {
  const bodyBytes = Buffer.byteLength(body);
  const headers = {
    "Content-Type": "text/plain; charset=utf-8",
    "Content-Length": String(bodyBytes),
    Connection: "close",
    ...extra,
  };
  return `HTTP/1.1 ${status} ${reason}\r\n${Object.entries(headers)
    .map(([n, v]) => `${n}: ${v}\r\n`)
    .join("")}\r\n${body}`;
}
