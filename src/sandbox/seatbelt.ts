// The macOS launcher: a SandboxSpec → `/usr/bin/sandbox-exec -p <profile> -D KEY=path … -- argv`.
// The profile is deny-default and its text depends only on how many paths of each kind there are:
// every path reaches it as a `-D` parameter read with (param "…"), never spliced into the SBPL, so
// a path cannot inject rules. Pinned by snapshot tests (test/sandbox/seatbelt.test.ts).
import { dirname } from "node:path";
import { type FsView, byDepth, realFs } from "./fsView.ts";
import { isInside } from "../files/isInside.ts";
import { resolveLoose, sandboxPaths } from "./paths.ts";
import type { SandboxSpec } from "./types.ts";

/** Always the absolute path: a `sandbox-exec` earlier on PATH could be anything. */
export const SANDBOX_EXEC = "/usr/bin/sandbox-exec";

// After Codex's seatbelt_base_policy.sbpl (itself after Chrome's renderer policy): what ordinary
// command-line programs need, and no LaunchServices or Apple Events (`open -a`, `osascript`).
const BASE = `(version 1)
(deny default)
(allow process-exec)
(allow process-fork)
(allow signal (target same-sandbox))
(allow process-info* (target same-sandbox))
(allow user-preference-read)
(allow mach-host*)
(allow sysctl-read)
(allow sysctl-write (sysctl-name "kern.grade_cputype"))
(allow iokit-open (iokit-registry-entry-class "RootDomainUserClient"))
(allow mach-lookup
  (global-name "com.apple.system.opendirectoryd.libinfo")
  (global-name "com.apple.PowerManagement.control")
  (global-name "com.apple.trustd.agent")
  (global-name "com.apple.SecurityServer")
  (global-name "com.apple.system.logger")
  (global-name "com.apple.logd"))
(allow ipc-posix-sem)
(allow ipc-posix-shm)
(allow pseudo-tty)
(allow file-read* file-write* file-ioctl (literal "/dev/ptmx"))
(allow file-read* file-write* (require-all (regex #"^/dev/ttys[0-9]+") (extension "com.apple.sandbox.pty")))
(allow file-write-data (require-all (regex #"^/dev/ttys[0-9]+") (vnode-type CHARACTER-DEVICE)))
(allow file-ioctl (regex #"^/dev/ttys[0-9]+"))
(allow file-write-data
  (require-all (literal "/dev/null") (vnode-type CHARACTER-DEVICE))
  (require-all (literal "/dev/zero") (vnode-type CHARACTER-DEVICE))
  (literal "/dev/dtracehelper")
  (subpath "/dev/fd"))`;

export interface SeatbeltParams {
  /** Writable folders (TMP first). */
  write: string[];
  /** Read-only although inside a writable folder (existing or not). */
  protect: string[];
  /** Folders that must not be renamed or removed: they lead to a protected path. */
  pin: string[];
  deny: string[];
  /** The proxy's loopback TCP port, or undefined for no network. */
  proxyPort: number | undefined;
}

const group = (rule: string, keys: string[], filter: (key: string) => string) =>
  keys.length === 0 ? [] : [`(${rule}\n${keys.map((key) => `  ${filter(key)}`).join("\n")})`];

/** The profile for these parameters. Only counts and the (validated) port appear in its text. */
export function seatbeltProfile(params: SeatbeltParams): string {
  const keys = (prefix: string, list: string[]) => list.map((_, i) => `${prefix}_${i}`);
  const param = (key: string) => `(param "${key}")`;
  const port = params.proxyPort;
  if (port !== undefined && !(Number.isInteger(port) && port > 0 && port < 65536))
    throw new Error(`invalid proxy port ${port}`);
  return [
    BASE,
    "; reads: everything but the unreadable paths",
    "(allow file-read*)",
    ...group("deny file-read*", keys("DENY", params.deny), (k) => `(subpath ${param(k)})`),
    "; writes: the writable folders, minus the protected paths (last rule wins)",
    ...group("allow file-write*", keys("WRITE", params.write), (k) => `(subpath ${param(k)})`),
    // literal too: subpath alone has been seen to leave the first creation (`mkdir .garuda`) open (Codex)
    ...group("deny file-write*", keys("PROTECT", params.protect), (k) => `(literal ${param(k)}) (subpath ${param(k)})`),
    ...group("deny file-write-unlink", keys("PIN", params.pin), (k) => `(literal ${param(k)})`),
    port === undefined
      ? "; network: none"
      : `; network: only Garuda's egress proxy\n(allow network-outbound (remote ip "localhost:${port}"))`,
  ].join("\n");
}

export interface SeatbeltOptions {
  fs?: FsView;
}

/** The parameters for a spec: every path real (macOS /tmp is /private/tmp, and Seatbelt matches real paths). */
export function seatbeltParams(spec: SandboxSpec, fs: FsView = realFs): SeatbeltParams {
  const paths = sandboxPaths(spec, fs);
  const protect = paths.protected.map((p) => p.path);
  const pins = new Set<string>();
  for (const target of protect) {
    const holder = paths.writable
      .filter((w) => isInside(target, w))
      .sort(byDepth)
      .pop();
    for (let dir = dirname(target); holder && dir !== holder && isInside(dir, holder); dir = dirname(dir))
      pins.add(dir);
  }
  return {
    write: [resolveLoose(spec.tmpDir, fs), ...paths.writable],
    protect,
    pin: [...pins].sort(byDepth),
    deny: paths.denyRead,
    proxyPort: spec.network.mode === "proxy" ? spec.network.tcpPort : undefined,
  };
}

/** The full command line: sandbox-exec, the profile, the parameters, then `argv`. */
export function seatbeltArgv(spec: SandboxSpec, argv: string[], options: SeatbeltOptions = {}): string[] {
  const params = seatbeltParams(spec, options.fs ?? realFs);
  if (spec.network.mode === "proxy" && params.proxyPort === undefined) {
    throw new Error("a proxied sandbox on macOS needs the proxy's TCP port (network.tcpPort)");
  }
  const defines = (prefix: string, list: string[]) => list.flatMap((path, i) => ["-D", `${prefix}_${i}=${path}`]);
  return [
    SANDBOX_EXEC,
    "-p",
    seatbeltProfile(params),
    ...defines("WRITE", params.write),
    ...defines("PROTECT", params.protect),
    ...defines("PIN", params.pin),
    ...defines("DENY", params.deny),
    "--",
    ...argv,
  ];
}
