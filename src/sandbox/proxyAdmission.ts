// How many client connections the egress proxies hold, and for how long one may take to say what
// it wants. Each proxy (one per session) has a cap of its own, and all the proxies of a process
// share a budget, made once by whoever starts sessions (cli/) and passed to each: one session's
// commands cannot take the descriptors and memory every other session needs, and all of them
// together cannot take the process's. A connection over either cap is answered 503 and closed at
// once; one that has not sent a whole head within the deadline is answered 408 and closed. Every
// request carries the session's token; the proxy checks it as soon as its header line is complete.
import { timingSafeEqual } from "node:crypto";
import { reply } from "./httpHead.ts";

/** Open client connections one proxy holds at most (a busy `npm ci` holds a few dozen). */
export const CONNECTIONS_PER_PROXY = 256;
/** Open client connections all the proxies of a process hold at most (each costs two descriptors). */
export const CONNECTIONS_IN_TOTAL = 1024;
/** Time from a connection's opening to the end of its request head. */
export const HEAD_DEADLINE_MS = 10_000;

/** The process-wide count, shared by every proxy it is passed to. */
export interface ProxyConnectionBudget {
  readonly max: number;
  open: number;
}

export function proxyConnectionBudget(max = CONNECTIONS_IN_TOTAL): ProxyConnectionBudget {
  return { max, open: 0 };
}

export interface ProxyAdmission {
  /** Open connections of this proxy. */
  readonly open: number;
  /** Counts a new connection in, or says why it is refused. */
  admit(): { admitted: true } | { admitted: false; reason: string };
  /** A connection admitted earlier has closed. */
  release(): void;
}

export function proxyAdmission(perProxy: number, shared: ProxyConnectionBudget): ProxyAdmission {
  let open = 0;
  return {
    get open() {
      return open;
    },
    admit() {
      if (open >= perProxy)
        return { admitted: false, reason: `this session already has ${perProxy} connections open through the proxy` };
      if (shared.open >= shared.max)
        return { admitted: false, reason: `all sessions together already have ${shared.max} connections open` };
      open++;
      shared.open++;
      return { admitted: true };
    },
    release() {
      open--;
      shared.open--;
    },
  };
}

/** A Proxy-Authorization value carries the token (Basic, any user name). */
export function tokenMatches(value: string | undefined, token: string): boolean {
  const basic = value && /^basic\s+(\S+)$/i.exec(value);
  if (!basic) return false;
  const decoded = Buffer.from(basic[1] as string, "base64").toString("utf8");
  const given = Buffer.from(decoded.slice(decoded.indexOf(":") + 1));
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The answer to a connection without the session's token. */
export function authRequired(): string {
  return reply(407, "Proxy Authentication Required", "Garuda's egress proxy needs the session token\n", {
    "Proxy-Authenticate": 'Basic realm="garuda"',
  });
}
