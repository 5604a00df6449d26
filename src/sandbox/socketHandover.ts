// The session network's listening socket, made inside the namespace and handed to Garuda, so no
// relay process stays in the namespace (sessionNetwork.ts). Both halves are C library calls
// through bun:ffi (loaded only here):
//
//   inside, once (bridge.ts --listen): socket() + bind(127.0.0.1:<port>) + listen() — a socket
//     belongs to the network namespace it was made in, whoever holds it later — then the file
//     descriptor number goes to the ready file and the process execs `cat`, which holds the
//     namespace and the socket (kept across exec: no close-on-exec) with ~1 MiB instead of a Bun
//     runtime, and ends when its stdin (a pipe from Garuda) does;
//   outside (Garuda): pidfd_open + pidfd_getfd (Linux ≥ 5.6) copy that descriptor out of the
//     holder, a process Garuda started; ioctl(SIOCGSKNS) then names the socket's namespace, which
//     must be the holder's, never Garuda's own. Garuda serves it: its egress proxy accepts there
//     directly (one relay instead of two), or it relays to the proxy's Unix socket.
import { dlopen, FFIType, ptr, read } from "bun:ffi";
import { closeSync, fstatSync, renameSync, statSync, writeFileSync } from "node:fs";
import { firstLibc } from "./libc.ts";

const AF_UNIX = 1;
const AF_INET = 2;
const SOCK_STREAM = 1;
const SOL_SOCKET = 1;
const SO_REUSEADDR = 2;
const SIOCGSKNS = 0x894c;
/** The same number on every Linux architecture (both are newer than the unified syscall table). */
const SYS_PIDFD_OPEN = 434;
const SYS_PIDFD_GETFD = 438;
const BACKLOG = 511;

/** Where `cat` is looked for: system paths only. */
const CAT_PATHS = ["/usr/bin/cat", "/bin/cat"];
/** The holder's argv[0] after the exec, so `ps` (and the tests) can tell it from any other cat. */
export const HOLDER_NAME = "garuda-network-holder";

function openLibc() {
  const symbols = firstLibc(
    (name) =>
      dlopen(name, {
        socket: { args: [FFIType.i32, FFIType.i32, FFIType.i32], returns: FFIType.i32 },
        setsockopt: { args: [FFIType.i32, FFIType.i32, FFIType.i32, FFIType.ptr, FFIType.u32], returns: FFIType.i32 },
        bind: { args: [FFIType.i32, FFIType.ptr, FFIType.u32], returns: FFIType.i32 },
        listen: { args: [FFIType.i32, FFIType.i32], returns: FFIType.i32 },
        connect: { args: [FFIType.i32, FFIType.ptr, FFIType.u32], returns: FFIType.i32 },
        close: { args: [FFIType.i32], returns: FFIType.i32 },
        execve: { args: [FFIType.ptr, FFIType.ptr, FFIType.ptr], returns: FFIType.i32 },
        syscall: { args: [FFIType.i64, FFIType.i64, FFIType.i64, FFIType.i64], returns: FFIType.i64 },
        ioctl: { args: [FFIType.i32, FFIType.u64, FFIType.u64], returns: FFIType.i32 },
        __errno_location: { args: [], returns: FFIType.ptr },
      }).symbols,
  );
  if (!symbols) throw new Error("no C library could be loaded (glibc or musl)");
  return symbols;
}

type Libc = ReturnType<typeof openLibc>;
let loaded: Libc | undefined;
const libc = (): Libc => {
  loaded ??= openLibc();
  return loaded;
};

function errno(c: Libc): number {
  const where = c.__errno_location();
  return where === null ? 0 : read.i32(where, 0);
}

const ERRNO_NAMES: Record<number, string> = { 1: "EPERM", 3: "ESRCH", 9: "EBADF", 13: "EACCES", 22: "EINVAL", 38: "ENOSYS", 98: "EADDRINUSE" };
const failed = (call: string, c: Libc) => {
  const code = errno(c);
  return `${call} failed (${ERRNO_NAMES[code] ?? `errno ${code}`})`;
};

const cString = (text: string) => Buffer.from(`${text}\0`);

/**
 * Inside the namespace: listens on 127.0.0.1:<port>, says "<pid> <fd>" in `readyFile` (written
 * whole, then renamed into place), and becomes `cat` holding the socket. Returns only on failure,
 * with what failed.
 */
export function listenAndHold(port: number, readyFile: string): string {
  const c = libc();
  const cat = CAT_PATHS.find((path) => statSync(path, { throwIfNoEntry: false })?.isFile());
  if (!cat) return `no cat program in ${CAT_PATHS.join(" or ")}`;
  const fd = c.socket(AF_INET, SOCK_STREAM, 0); // no SOCK_CLOEXEC: the socket stays open across the exec
  if (fd < 0) return failed("socket()", c);
  const one = new Int32Array([1]);
  c.setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, ptr(one), 4);
  // struct sockaddr_in: family (host order), port (network order), 127.0.0.1, zero padding
  const address = new Uint8Array(16);
  new DataView(address.buffer).setUint16(0, AF_INET, true);
  new DataView(address.buffer).setUint16(2, port, false);
  address.set([127, 0, 0, 1], 4);
  if (c.bind(fd, ptr(address), address.byteLength) !== 0) return failed(`bind(127.0.0.1:${port})`, c);
  if (c.listen(fd, BACKLOG) !== 0) return failed("listen()", c);
  writeFileSync(`${readyFile}.tmp`, `${process.pid} ${fd}\n`);
  renameSync(`${readyFile}.tmp`, readyFile);
  const path = cString(cat);
  const name = cString(HOLDER_NAME);
  const argv = new BigUint64Array([BigInt(ptr(name)), 0n]);
  const envp = new BigUint64Array([0n]);
  c.execve(ptr(path), ptr(argv), ptr(envp));
  return failed(`execve(${cat})`, c);
}

/**
 * Outside: a copy of listening socket `fd` of process `pid` (close-on-exec, as pidfd_getfd makes
 * it), checked to live in the network namespace whose inode is `netIno`; or why not.
 */
export function takeListener(pid: number, fd: number, netIno: number): { fd: number } | { error: string } {
  const c = libc();
  const pidfd = Number(c.syscall(BigInt(SYS_PIDFD_OPEN), BigInt(pid), 0n, 0n));
  if (pidfd < 0) return { error: failed("pidfd_open", c) };
  let copy: number;
  try {
    copy = Number(c.syscall(BigInt(SYS_PIDFD_GETFD), BigInt(pidfd), BigInt(fd), 0n));
    if (copy < 0) return { error: failed("pidfd_getfd", c) };
  } finally {
    closeSync(pidfd);
  }
  const ns = c.ioctl(copy, BigInt(SIOCGSKNS), 0n);
  if (ns < 0) {
    const error = failed("ioctl(SIOCGSKNS)", c);
    closeSync(copy);
    return { error };
  }
  let ino: number;
  try {
    ino = fstatSync(ns).ino;
  } finally {
    closeSync(ns);
  }
  if (ino !== netIno) {
    closeSync(copy);
    return { error: "the sandbox network's socket is not in the sandbox's network namespace" };
  }
  return { fd: copy };
}

/**
 * Whether something listens on the Unix socket at `path` (the egress proxy): one blocking
 * connect(), which a listening socket completes at once, even one served by this very process.
 * Blocking on purpose: start() waits for its network synchronously, with Bun's loop stopped.
 */
export function unixAnswers(path: string): boolean {
  const c = libc();
  const bytes = Buffer.from(path);
  if (bytes.byteLength >= 108) return false; // longer than sockaddr_un.sun_path: no socket can be there
  const address = new Uint8Array(110);
  new DataView(address.buffer).setUint16(0, AF_UNIX, true);
  address.set(bytes, 2);
  const fd = c.socket(AF_UNIX, SOCK_STREAM, 0);
  if (fd < 0) return false;
  try {
    return c.connect(fd, ptr(address), address.byteLength) === 0;
  } finally {
    c.close(fd);
  }
}
