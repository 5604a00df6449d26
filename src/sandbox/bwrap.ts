// The Linux launcher: a SandboxSpec → bubblewrap arguments. Pure over (spec, fs) and pinned by
// snapshot tests (test/sandbox/bwrap.test.ts), so a reviewer sees every path a command can touch.
//
// Mount order matters (later mounts cover earlier ones):
//   1. `/` read-only, a fresh /dev and /proc (new PID namespace);
//   2. the session tmp at /tmp and at its own path (TMPDIR), hiding the host's /tmp — its
//      sockets (X11, ssh-agent) and other sessions' files; read-only paths that lived under the
//      host's /tmp (HOME in tests, the bridge binary) are bound back;
//   3. writable folders (root, package caches, writePaths, git dirs), parents first;
//   4. protected paths read-only, whether or not they exist: an existing one is bound over
//      itself, a missing one gets a read-only placeholder (empty tmpfs for a folder, /dev/null for
//      a file; bwrap creates the empty mount point on the host, and it stays there). Every folder
//      between the writable root and a protected path is bound over itself first ("pinned"): a
//      mount point cannot be renamed or removed (EBUSY), so `mv .git x; mkdir -p .git/hooks` fails;
//   5. unreadable paths: a folder → empty read-only tmpfs, a file → /dev/null;
//   6. other sessions' folders (spec.sessionsDir) where still visible: an empty tmpfs, with this
//      session's tmp bound back;
//   7. the egress proxy's Unix socket, the only way out of the network namespace (not when the
//      command joins the session's network, whose bridge alone talks to the proxy).
// No secret is an argument: bwrap is started with exactly the command's environment and passes it
// on. Arguments are readable by every local user (ps, /proc/<pid>/cmdline), an environment only
// by the same user, and the environment holds the egress proxy's token and an MCP server's keys.
// TMPDIR alone is also set here (a path the mounts name anyway): the C library of a setuid bwrap
// drops it from the environment it was given.
// A protected path that is itself a symlink is held at its target; the link can still be replaced.
import { dirname } from "node:path";
import { type FsView, byDepth, realFs } from "./fsView.ts";
import { isInside } from "../files/isInside.ts";
import { type ProtectedPath, resolveLoose, sandboxPaths } from "./paths.ts";
import type { SandboxSpec } from "./types.ts";

export interface BwrapOptions {
  fs?: FsView;
  /** The working folder (default: the root). */
  cwd?: string;
  /** bwrap ≥ 0.8 has --disable-userns (no nested user namespaces, which could undo the mounts). */
  disableUserns?: boolean;
  /**
   * The command joins the session's network namespace (sessionNetwork.ts; the caller enters it
   * first): no --unshare-net, and no proxy socket, which only the session's bridge talks to.
   */
  sharedNetwork?: boolean;
  /** Extra paths that must stay readable although they live under the host's /tmp (e.g. the bridge binary). */
  readPaths?: string[];
}

type Mount = [flag: "--bind" | "--ro-bind", source: string, dest: string];

/** The placeholder that holds a protected path: existing → itself; missing → its first missing component. */
function holdProtected(entry: ProtectedPath, fs: FsView): { target: string; args: string[] } | undefined {
  const kind = fs.kind(entry.path);
  if (kind === "dir" || kind === "file") return { target: entry.path, args: ["--ro-bind", entry.path, entry.path] };
  let first = entry.path;
  while (fs.kind(dirname(first)) === "missing") first = dirname(first);
  if (fs.kind(dirname(first)) !== "dir") return undefined; // under a file: it can never be created
  const asDir = first !== entry.path || entry.dir;
  return {
    target: first,
    args: asDir ? ["--tmpfs", first, "--remount-ro", first] : ["--ro-bind", "/dev/null", first],
  };
}

/** Folders strictly between the writable folder holding `target` and `target`. */
function pinsFor(target: string, writable: string[]): string[] {
  const holder = writable
    .filter((w) => isInside(target, w))
    .sort(byDepth)
    .pop();
  const pins: string[] = [];
  if (!holder) return pins;
  for (let dir = dirname(target); dir !== holder && isInside(dir, holder); dir = dirname(dir)) pins.push(dir);
  return pins;
}

/**
 * Arguments for `bwrap` (without the program itself) that run `argv` in the sandbox described by
 * `spec`. The command gets bwrap's own environment: start bwrap with exactly the command's.
 */
export function bwrapArgv(spec: SandboxSpec, argv: string[], options: BwrapOptions = {}): string[] {
  const fs = options.fs ?? realFs;
  const paths = sandboxPaths(spec, fs);
  const tmp = resolveLoose(spec.tmpDir, fs);
  const root = resolveLoose(spec.root, fs);
  const home = resolveLoose(spec.home, fs);

  const args = [
    "--new-session",
    "--die-with-parent",
    "--unshare-user",
    ...(options.disableUserns ? ["--disable-userns"] : []),
    "--cap-drop",
    "ALL",
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
    ...(options.sharedNetwork ? [] : ["--unshare-net"]),
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    "--bind",
    tmp,
    "/tmp",
  ];
  if (tmp !== "/tmp") args.push("--bind", tmp, tmp);

  // Read-only paths the /tmp mount hid, and the writable folders, in one parents-first order.
  const mounts: Mount[] = paths.writable.map((w) => ["--bind", w, w]);
  const hidden = (path: string) => isInside(path, "/tmp") && !isInside(path, tmp);
  const readBack = [
    home,
    ...(spec.projectReadOnly ? [root] : []),
    ...(options.readPaths ?? []).map((p) => resolveLoose(p, fs)),
  ];
  for (const path of new Set(readBack)) {
    if (hidden(path) && fs.kind(path) !== "missing" && !paths.writable.some((w) => isInside(path, w))) {
      mounts.push(["--ro-bind", path, path]);
    }
  }
  mounts.sort((a, b) => byDepth(a[2], b[2]));
  for (const mount of mounts) args.push(...mount);
  const visible = (path: string) => !hidden(path) || mounts.some((m) => isInside(path, m[2]));

  const held = paths.protected.flatMap((entry) => holdProtected(entry, fs) ?? []);
  const targets = held.map((h) => h.target);
  const outer = held.filter((h) => !targets.some((t) => t !== h.target && isInside(h.target, t)));
  const pins = new Set(outer.flatMap((h) => pinsFor(h.target, paths.writable)));
  for (const pin of [...pins].sort(byDepth)) {
    if (!targets.some((t) => isInside(pin, t))) args.push("--bind", pin, pin);
  }
  for (const h of outer) args.push(...h.args);

  for (const path of paths.denyRead) {
    const kind = fs.kind(path);
    if (!visible(path)) continue;
    if (kind === "dir") args.push("--tmpfs", path, "--remount-ro", path);
    else if (kind === "file") args.push("--ro-bind", "/dev/null", path);
  }

  // Other sessions' folders, where they would be visible: an empty tmpfs over them all, this
  // session's tmp bound back at its own path (TMPDIR), read-only once the mounts below it are made.
  const sessions = spec.sessionsDir === undefined ? undefined : resolveLoose(spec.sessionsDir, fs);
  const hideSessions = sessions !== undefined && visible(sessions) && fs.kind(sessions) === "dir";
  if (hideSessions) {
    args.push("--tmpfs", sessions);
    if (isInside(tmp, sessions)) args.push("--bind", tmp, tmp);
  }

  if (spec.network.mode === "proxy" && !options.sharedNetwork) {
    const socket = resolveLoose(spec.network.socketPath, fs);
    args.push("--bind", socket, socket);
  }
  if (hideSessions) args.push("--remount-ro", sessions);

  args.push("--setenv", "TMPDIR", spec.tmpDir, "--chdir", options.cwd ?? root, "--", ...argv);
  return args;
}

const ARITY: Record<string, number> = {
  "--ro-bind": 2,
  "--bind": 2,
  "--tmpfs": 1,
  "--remount-ro": 1,
  "--dev": 1,
  "--proc": 1,
  "--setenv": 2,
  "--chdir": 1,
  "--cap-drop": 1,
};

/** bwrap arguments one option per line (for the audit log, debugging, and snapshot tests). */
export function describeBwrapArgv(args: string[]): string {
  const lines: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const flag = args[i] as string;
    if (flag === "--") {
      lines.push(`-- ${JSON.stringify(args.slice(i + 1))}`);
      break;
    }
    const arity = ARITY[flag] ?? 0;
    lines.push([flag, ...args.slice(i + 1, i + 1 + arity)].join(" "));
    i += arity;
  }
  return lines.join("\n");
}
