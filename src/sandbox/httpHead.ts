// The little HTTP the egress proxy speaks: find and parse a request head, tell CONNECT from an
// absolute-URI request, rewrite the latter for the origin server, and build short replies.
export interface RequestHead {
  method: string;
  target: string;
  version: string;
  headers: Array<[name: string, value: string]>;
}

/** Longest request head accepted. */
export const MAX_HEAD_BYTES = 64 * 1024;

const CRLF2 = [13, 10, 13, 10];

/** Index just past the blank line ending the head, or -1. */
export function headEnd(bytes: Uint8Array): number {
  outer: for (let i = 0; i + 3 < bytes.length; i++) {
    for (let k = 0; k < 4; k++) if (bytes[i + k] !== CRLF2[k]) continue outer;
    return i + 4;
  }
  return -1;
}

export function parseRequestHead(text: string): RequestHead | undefined {
  const lines = text.split("\r\n");
  const request = /^([A-Z]+) (\S+) (HTTP\/1\.[01])$/.exec(lines[0] ?? "");
  if (!request) return undefined;
  const headers: Array<[string, string]> = [];
  for (const line of lines.slice(1)) {
    if (line === "") continue;
    const colon = line.indexOf(":");
    if (colon <= 0) return undefined;
    headers.push([line.slice(0, colon).trim(), line.slice(colon + 1).trim()]);
  }
  return { method: request[1] as string, target: request[2] as string, version: request[3] as string, headers };
}

export function header(head: RequestHead, name: string): string | undefined {
  const lower = name.toLowerCase();
  return head.headers.find(([key]) => key.toLowerCase() === lower)?.[1];
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

const HOP_BY_HOP = new Set(["proxy-authorization", "proxy-connection", "connection", "keep-alive"]);

/** The head sent to the origin: origin-form target, proxy headers dropped, one request per connection. */
export function originHead(head: RequestHead, path: string, hostHeader: string): string {
  const headers = head.headers.filter(([name]) => !HOP_BY_HOP.has(name.toLowerCase()));
  if (!headers.some(([name]) => name.toLowerCase() === "host")) headers.unshift(["Host", hostHeader]);
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
