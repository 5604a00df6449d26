// The two C library calls Garuda's process handling needs on Linux, through bun:ffi (loaded only
// when a caller asks): prctl (subreaper, not dumpable, parent-death signal) and waitpid (reaping
// processes Garuda adopted but Bun did not start). The library stays open for the life of the
// process, since reapers call waitpid until the end.

/** glibc, then musl (x64, arm64). */
export const LIBC = ["libc.so.6", "libc.musl-x86_64.so.1", "libc.musl-aarch64.so.1"];

/**
 * What `open` makes of the first C library of LIBC that loads (dlopen throws for one that is not
 * there, or lacks a symbol), or undefined when none does.
 */
export function firstLibc<T>(open: (name: string) => T): T | undefined {
  for (const name of LIBC) {
    try {
      return open(name);
    } catch {
      // Not this C library: try the next one.
    }
  }
  return undefined;
}

export const PR_SET_PDEATHSIG = 1;
export const PR_SET_DUMPABLE = 4;
export const PR_SET_CHILD_SUBREAPER = 36;
export const WNOHANG = 1;

export interface Libc {
  /** prctl(option, value, 0, 0, 0): 0 on success. */
  prctl(option: number, value: number): number;
  /** waitpid(pid, NULL, options): the pid reaped, 0 (WNOHANG, not yet) or -1. */
  waitpid(pid: number, options: number): number;
}

/** The C library, or undefined off Linux or when no known one loads. */
export async function openLibc(): Promise<Libc | undefined> {
  if (process.platform !== "linux") return undefined;
  const { dlopen, FFIType } = await import("bun:ffi");
  return firstLibc((name) => {
    const libc = dlopen(name, {
      prctl: { args: [FFIType.i32, FFIType.u64, FFIType.u64, FFIType.u64, FFIType.u64], returns: FFIType.i32 },
      waitpid: { args: [FFIType.i32, FFIType.ptr, FFIType.i32], returns: FFIType.i32 },
    });
    return {
      prctl: (option, value) => libc.symbols.prctl(option, BigInt(value), 0n, 0n, 0n),
      waitpid: (pid, options) => libc.symbols.waitpid(pid, null, options),
    };
  });
}
