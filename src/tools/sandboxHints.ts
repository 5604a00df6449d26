// Hints for the model when a command failed in the OS sandbox the way a sandbox makes commands
// fail: a write to a path outside the writable set (EROFS/EACCES/EPERM), or the network (no DNS,
// no route, the egress proxy's refusal). The model learns that it was the sandbox, not the
// command, and that it may run it again outside the sandbox — which asks the user — unless the
// team policy forbids that.
import { isAbsolute, resolve } from "node:path";
import { realFs } from "../sandbox/fsView.ts";
import { isInside } from "../files/isInside.ts";
import { sandboxPaths } from "../sandbox/paths.ts";
import type { SandboxSpec } from "../sandbox/types.ts";

/** Whether a command may be offered to run outside the sandbox (the team policy may forbid it). */
export type OutsideSandbox = "ask" | "forbidden";

const FS_ERROR = /Read-only file system|EROFS|Permission denied|EACCES|Operation not permitted|EPERM/;
const READ_ONLY_FS = /Read-only file system|EROFS/;
const NETWORK_ERROR = new RegExp(
  [
    "Could not resolve host",
    "Could not resolve proxy",
    "Temporary failure in name resolution",
    "Name or service not known",
    "No address associated with hostname",
    "getaddrinfo",
    "ENOTFOUND",
    "EAI_AGAIN",
    "Network is unreachable",
    "ENETUNREACH",
    "Unable to connect",
    "ConnectionRefused",
    "from proxy after CONNECT",
    "CONNECT tunnel failed",
    "Failed to establish a new connection",
    "unable to access '[^']*'",
  ].join("|"),
  "i",
);
const PROXY_REFUSAL = /Garuda's egress proxy refused ([^\s:]+(?::\d+)?): ([^\n]+)/;

/** The shell's own prefix on an error line ("/bin/bash: line 1: "), which names no path of interest. */
const SHELL_PREFIX = /^(?:\/\S*\/)?(?:ba|da|z)?sh: (?:line \d+: )?/;

/**
 * Paths named on an error line, nearest before the error first: quoted ones (relative allowed) and bare absolute ones.
 */
function pathsOn(line: string, root: string): string[] {
  const text = line.replace(SHELL_PREFIX, "");
  const at = text.search(FS_ERROR);
  const found: Array<{ path: string; index: number }> = [];
  for (const match of text.matchAll(/['"‘’`]([^'"‘’`\n]+)['"‘’`]/g)) {
    const quoted = (match[1] as string).trim();
    if (quoted.length > 0 && !/\s{2,}/.test(quoted))
      found.push({ path: isAbsolute(quoted) ? quoted : resolve(root, quoted), index: match.index ?? 0 });
  }
  for (const match of text.matchAll(/(?:^|[\s=(])(\/[^\s'"‘’`:,)]+)/g))
    found.push({ path: match[1] as string, index: match.index ?? 0 });
  const before = found.filter((f) => f.index < at).sort((a, b) => b.index - a.index);
  const after = found.filter((f) => f.index >= at).sort((a, b) => a.index - b.index);
  return [...before, ...after].map((f) => f.path);
}

/** The first named path the sandbox does not let the command write, if any. */
function blockedPath(lines: string[], root: string, spec: SandboxSpec): string | undefined {
  const paths = sandboxPaths(spec, realFs);
  const writable = (path: string) => {
    const real = realFs.realpath(path);
    const candidates = [path, real];
    // On Linux the session's temp folder is mounted at /tmp too; folders bound back under the
    // host's /tmp (HOME in tests) stay read-only.
    const sessionTmp = (p: string) => isInside(p, spec.tmpDir) || (isInside(p, "/tmp") && !isInside(p, spec.home));
    const inWritable = candidates.some((p) => paths.writable.some((w) => isInside(p, w)) || sessionTmp(p));
    const held = candidates.some((p) => paths.protected.some((entry) => isInside(p, entry.path.replace(/\/$/, ""))));
    return inWritable && !held;
  };
  for (const line of lines) {
    const named = pathsOn(line, root).filter((path) => !path.startsWith("/dev/") && path !== "/dev");
    // "Read-only file system" is about the path nearest the error ("cannot copy <template> to
    // <target>: Read-only file system"), whatever the spec says of it (a placeholder made since).
    if (READ_ONLY_FS.test(line) && named[0] !== undefined) return named[0];
    const blocked = named.find((path) => !writable(path));
    if (blocked) return blocked;
  }
  return undefined;
}

function retryAdvice(outside: OutsideSandbox): string {
  return outside === "forbidden"
    ? "Commands may not run outside the sandbox here (the team policy or the " +
        "project's settings), so do not retry it another way; tell the user what was " +
        "blocked."
    : "If the task needs it, run the same command again with outside_sandbox: true; " +
        "the user will be asked to approve it.";
}

/**
 * `[Garuda: …]` lines for a command that ran in the sandbox and failed, or nothing when the
 * failure does not look like the sandbox's doing.
 */
export function sandboxHints(output: string, root: string, spec: SandboxSpec, outside: OutsideSandbox): string[] {
  const hints: string[] = [];
  const lines = output.split("\n");
  const fsLines = lines.filter((line) => FS_ERROR.test(line));
  if (fsLines.length > 0) {
    const path = blockedPath(fsLines, root, spec);
    const readOnlyFs = fsLines.some((line) => READ_ONLY_FS.test(line));
    const inProject = path !== undefined && isInside(path, root);
    // In plan mode no write is for now, in the project or elsewhere, and nothing may leave the sandbox.
    if (spec.projectReadOnly && (inProject || path !== undefined || readOnlyFs)) {
      hints.push(
        "[Garuda: in plan mode commands run in the sandbox with the project read-only, " +
          "so this write was refused. Put the change in your plan; the user switches to " +
          "build mode to carry it out.]",
      );
    } else if (path !== undefined || readOnlyFs) {
      const what =
        path !== undefined
          ? `writing ${path}, which is outside the folders commands may write (the project, ` +
            `the session's temp folder and package caches)`
          : "a write outside the folders commands may write (the project, the session's " +
            "temp folder and package caches)";
      hints.push(`[Garuda: this command ran in the OS sandbox, which refused ${what}. ${retryAdvice(outside)}]`);
    }
  }
  const refusal = PROXY_REFUSAL.exec(output);
  if (refusal) {
    hints.push(
      `[Garuda: the sandbox's network proxy refused ${refusal[1]} ` +
        `(${(refusal[2] as string).trim()}). ${retryAdvice(outside)}]`,
    );
  } else if (NETWORK_ERROR.test(output)) {
    const how =
      spec.network.mode === "none"
        ? "has no network access"
        : "reaches the network only through Garuda's proxy, for the hosts the user allowed";
    hints.push(
      `[Garuda: this command ran in the OS sandbox, which ${how}; that is likely why ` +
        `it failed. ${retryAdvice(outside)}]`,
    );
  }
  return hints;
}
