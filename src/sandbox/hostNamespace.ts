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
// /proc is new (the namespace's own). The user's commands keep their keeper: they must see the
// host's processes and run setuid programs, which a PID namespace under bwrap's no_new_privs
// would change. Pure, pinned by test/sandbox/hostNamespace.test.ts.

/** bwrap's argv that runs `argv` in `cwd` in a PID namespace of its own, on the host's files. */
export function hostPidNamespaceArgv(bwrap: string, cwd: string, argv: string[]): string[] {
  return [
    bwrap,
    "--dev-bind",
    "/",
    "/",
    "--proc",
    "/proc",
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
