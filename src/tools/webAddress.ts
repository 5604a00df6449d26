// Which URLs web_fetch may fetch and where it may connect: http(s) only, no credentials in the
// URL, no fragment, plain http upgraded to https (except loopback, for local testing); every
// address a host resolves to must be public unicast (loopback only when allowed). The caller
// connects to exactly the addresses checked here, so a second DNS answer cannot swap in a
// private one (DNS rebinding).
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import ipaddr from "ipaddr.js";
import { messageOf } from "../errors/caught.ts";

/** A host name → its addresses. */
export type Resolver = (host: string) => Promise<string[]>;

export const systemResolver: Resolver = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);

/** The host name without IPv6 brackets. */
export function bareHost(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, "$1");
}

/** localhost, *.localhost, 127.0.0.0/8 and ::1, by name (before any lookup). */
function isLoopbackName(host: string): boolean {
  const name = host
    .toLowerCase()
    .replace(/^\[(.*)\]$/, "$1")
    .replace(/\.$/, "");
  if (name === "localhost" || name.endsWith(".localhost")) return true;
  if (!isIP(name)) return false;
  return ipaddr.process(name).range() === "loopback";
}

export type UrlCheck = { ok: true; url: URL } | { ok: false; error: string };

/** Parses and normalizes a URL the model gave (or a redirect's Location, against `base`). */
export function normalizeUrl(raw: string, base?: URL): UrlCheck {
  let url: URL;
  try {
    url = base ? new URL(raw.trim(), base) : new URL(raw.trim());
  } catch {
    return { ok: false, error: `${raw} is not a valid URL. Give a full address such as https://example.com/page.` };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return {
      ok: false,
      error: `web_fetch fetches http and https URLs only, not ${url.protocol.replace(/:$/, "")}: URLs.`,
    };
  }
  if (url.username !== "" || url.password !== "") {
    return {
      ok: false,
      error:
        "The URL contains a user name or password; web_fetch does not send credentials. Give the URL without them.",
    };
  }
  url.hash = "";
  if (url.protocol === "http:" && !isLoopbackName(url.hostname)) {
    url.protocol = "https:";
    if (url.port === "80") url.port = "";
  }
  return { ok: true, url };
}

/** Why web_fetch may not connect to this address, or undefined when it may. */
export function addressProblem(address: string, allowLocalhost: boolean): string | undefined {
  if (!ipaddr.isValid(address)) return `${address} is not an IP address`;
  const range = ipaddr.process(address).range();
  if (range === "unicast") return undefined;
  if (range === "loopback") return allowLocalhost ? undefined : `${address} is this computer (loopback)`;
  return `${address} is a ${range} address, not a public one`;
}

/** The addresses to connect to for `url`: all of them checked, or why not. */
export async function checkedAddresses(
  url: URL,
  resolve: Resolver,
  allowLocalhost: boolean,
): Promise<{ ok: true; addresses: string[] } | { ok: false; error: string }> {
  const host = bareHost(url);
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = await resolve(host);
    } catch (error) {
      return { ok: false, error: `Could not resolve ${host}: ${messageOf(error)}` };
    }
  }
  if (addresses.length === 0) return { ok: false, error: `Could not resolve ${host}: no addresses` };
  for (const address of addresses) {
    const problem = addressProblem(address, allowLocalhost);
    if (problem !== undefined) {
      return {
        ok: false,
        error:
          `Refused to fetch ${url.href}: ` +
          `${host === address ? problem : `${host} resolves to ${address}, and ${problem}`}. ` +
          `web_fetch reaches public internet addresses only.`,
      };
    }
  }
  return { ok: true, addresses };
}
