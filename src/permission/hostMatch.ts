// Host patterns for `web_fetch(…)` and `network(…)` rules and the policy's host lists:
//   example.com     that host only            *.example.com   its subdomains, not example.com itself
//   *               every host                 domain:x.com    Claude Code's form, same as x.com
// A `:port` suffix on a pattern is accepted and ignored (hosts are matched, not ports). Hosts
// compare case-insensitively, without a trailing dot.

/** A host in canonical form: lower case, no trailing dot, IPv6 brackets removed. */
function canonicalHost(host: string): string {
  return host
    .trim()
    .toLowerCase()
    .replace(/\.$/, "")
    .replace(/^\[(.*)\]$/, "$1");
}

/** The host of a URL; undefined when the URL cannot be parsed or has none. */
export function hostOfUrl(url: string): string | undefined {
  try {
    const host = new URL(url).hostname;
    return host.length > 0 ? canonicalHost(host) : undefined;
  } catch {
    return undefined;
  }
}

function patternHost(pattern: string): string {
  let p = pattern.trim().toLowerCase();
  if (p.startsWith("domain:")) p = p.slice("domain:".length);
  // Drop a port: `host:443` (one colon) or `[v6]:443`.
  const port = /^(\[.*\]|[^:]*):\d{1,5}$/.exec(p);
  if (port) p = port[1] ?? p;
  return canonicalHost(p);
}

/** Whether a host pattern covers a host. */
export function matchHost(pattern: string, host: string): boolean {
  const p = patternHost(pattern);
  const h = canonicalHost(host);
  if (p === "*") return true;
  if (p.startsWith("*.")) {
    const base = p.slice(2);
    return base.length > 0 && h.endsWith(`.${base}`);
  }
  return p === h;
}
