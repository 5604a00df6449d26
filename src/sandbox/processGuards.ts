// Linux: Garuda becomes its process tree's "child subreaper" (prctl PR_SET_CHILD_SUBREAPER). A
// process that a command on the host detaches (setsid, then its parent exits) is then re-parented
// to Garuda instead of to init, so it stays in Garuda's tree, where the exit handlers of
// `garuda acp` and the chat find it and kill it. Sandboxed commands need none of this: their PID
// namespace dies with bwrap. bun:ffi is loaded only here, when the first executor is made.
const PR_SET_CHILD_SUBREAPER = 36;
/** glibc, then musl (x64, arm64). */
const LIBC = ["libc.so.6", "libc.musl-x86_64.so.1", "libc.musl-aarch64.so.1"];

let adopted: Promise<boolean> | undefined;

async function becomeSubreaper(): Promise<boolean> {
  if (process.platform !== "linux") return false;
  const { dlopen, FFIType } = await import("bun:ffi");
  for (const name of LIBC) {
    try {
      const libc = dlopen(name, { prctl: { args: [FFIType.i32, FFIType.u64, FFIType.u64, FFIType.u64, FFIType.u64], returns: FFIType.i32 } });
      const result = libc.symbols.prctl(PR_SET_CHILD_SUBREAPER, 1n, 0n, 0n, 0n);
      libc.close();
      return result === 0;
    } catch {
      // Not this C library: try the next one.
    }
  }
  return false;
}

/** Makes this process the subreaper once (a process-wide setting, so once per process); true when it is. */
export function adoptOrphans(): Promise<boolean> {
  adopted ??= becomeSubreaper().catch(() => false);
  return adopted;
}
