// How Garuda's own host commands run on Linux (undo's git: ExecRequest.internal): with the host's
// whole file system and the user's own rights, as any host command, but in a PID namespace of
// their own made by bwrap, instead of under a process keeper (keeper.ts, a second Bun process of
// ~32 MiB RSS during a turn). The namespace gives what the keeper gives:
//   - nothing outlives the call: when the command's main process exits, the namespace's init
//     (bwrap's) exits and the kernel SIGKILLs whatever is left in it, a setsid'd or
//     double-forked child too (it cannot leave the namespace);
//   - nothing outlives Garuda: bwrap has a parent-death signal (--die-with-parent), and its end
//     ends the namespace;
//   - cancel, timeout and shutdown reach every process in it (job.ts, as for sandboxed commands).
// It is not a sandbox: `/` is bound as it is, devices included (git needs /dev/null), and only
// /proc is new (the namespace's own). What the sandbox hides from commands is hidden here too
// (an empty folder, /dev/null for a file), but for the folders the command works in (the project,
// the undo store): undo's git opens a file after its lstat, so a sandboxed background process
// that swaps a project file for a link to ~/.ssh/id_rsa in between would have the key hashed
// into a snapshot, shown in a diff and put back into the project by /undo. The user's commands
// keep their keeper: they must see the host's processes and run setuid programs, which a PID
// namespace under bwrap's no_new_privs would change. Pure, pinned by
// test/sandbox/hostNamespace.test.ts.
import { isInside } from "../files/isInside.ts";
import type { PathKind } from "./fsView.ts";

/** A path hidden from Garuda's own host commands: an empty read-only folder, or /dev/null. */
export interface HiddenPath {
  path: string;
  dir: boolean;
}

/**
 * Of the sandbox's hidden paths (parents first), those to hide from Garuda's own host commands:
 * the existing ones, not inside one hidden already, and not holding or inside a folder in `kept`.
 */
export function hostHiddenPaths(
  denyRead: readonly string[],
  kept: readonly string[],
  kind: (path: string) => PathKind,
): HiddenPath[] {
  const hidden: HiddenPath[] = [];
  for (const path of denyRead) {
    if (kept.some((folder) => isInside(folder, path) || isInside(path, folder))) continue;
    if (hidden.some((outer) => outer.dir && isInside(path, outer.path))) continue;
    const found = kind(path);
    if (found === "dir" || found === "file") hidden.push({ path, dir: found === "dir" });
  }
  return hidden;
}

/** bwrap's argv that runs `argv` in `cwd` in a PID namespace of its own, on the host's files but `hidden`. */
export function hostPidNamespaceArgv(
  bwrap: string,
  cwd: string,
  argv: string[],
  hidden: readonly HiddenPath[] = [],
): string[] {
  return [
    bwrap,
    "--dev-bind",
    "/",
    "/",
    "--proc",
    "/proc",
    ...hidden.flatMap(({ path, dir }) =>
      dir ? ["--tmpfs", path, "--remount-ro", path] : ["--ro-bind", "/dev/null", path],
    ),
    "--unshare-pid",
    "--die-with-parent",
    "--chdir",
    cwd,
    "--",
    ...argv,
  ];
}

/**
 * Whether such a namespace can be made here: the sandbox probe tried bwrap with a read-only `/`,
 * not with `/` bound whole, so one trial run (a few ms, once per executor) decides; where it
 * fails, Garuda's own commands run under the keeper as the user's do.
 */
export async function hostNamespaceWorks(bwrap: string, env: Record<string, string>): Promise<boolean> {
  try {
    const proc = Bun.spawn(hostPidNamespaceArgv(bwrap, "/", ["/bin/sh", "-c", "exec true"]), {
      env,
      stdin: "ignore",
      stdout: "ignore",
      stderr: "ignore",
      timeout: 10_000,
    });
    return (await proc.exited) === 0;
  } catch {
    return false;
  }
}
