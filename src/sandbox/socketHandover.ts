// The session network's listening socket, made inside the sandbox's network namespace and held
// by Garuda, so no process of Garuda's stays in the namespace (sessionNetwork.ts): the namespace's
// holder is bwrap running `cat` (~3 MiB), and Garuda's egress proxy accepts on the socket itself.
//
// A socket belongs to the network namespace it was made in. listenInside() makes it there from a
// short-lived child of Garuda's that enters the holder's namespaces (listenInside.c.ts, compiled by
// Bun's TinyCC) and leaves the socket in Garuda's table of open files: about a millisecond, and no
// Bun start (a listen-mode bridge was ~27 MiB of RSS for ~20 ms at each session's first command).
// Before it enters, the namespaces are checked to be the holder's and not Garuda's own; after, the
// socket's namespace (ioctl SIOCGSKNS) is checked to be the holder's, never Garuda's (a command
// must never be served on the host's network).
import { cc, dlopen, FFIType, ptr, read } from "bun:ffi";
import { closeSync, fstatSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { LISTEN_INSIDE_C } from "./listenInside.c.ts";
import { messageOf } from "../errors/caught.ts";
import { firstLibc } from "./libc.ts";

const AF_UNIX = 1;
const SOCK_STREAM = 1;
const SIOCGSKNS = 0x894c;

function openLibc() {
  const symbols = firstLibc(
    (name) =>
      dlopen(name, {
        socket: { args: [FFIType.i32, FFIType.i32, FFIType.i32], returns: FFIType.i32 },
        connect: { args: [FFIType.i32, FFIType.ptr, FFIType.u32], returns: FFIType.i32 },
        close: { args: [FFIType.i32], returns: FFIType.i32 },
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

interface Native {
  open_cloexec(path: Buffer): number;
  listen_inside(userFd: number, netFd: number, port: number, intoFd: number): number;
}
/** Compiled once a process, at the first session network (a few ms of TinyCC). */
let native: Native | undefined;
function compiled(folder: string): Native {
  if (native) return native;
  const source = join(folder, "listen-inside.c");
  writeFileSync(source, LISTEN_INSIDE_C, { mode: 0o600 });
  native = cc({
    source,
    symbols: {
      open_cloexec: { args: [FFIType.cstring], returns: FFIType.i32 },
      listen_inside: { args: [FFIType.i32, FFIType.i32, FFIType.i32, FFIType.i32], returns: FFIType.i32 },
    },
  }).symbols as unknown as Native;
  return native;
}

function errno(c: Libc): number {
  const where = c.__errno_location();
  return where === null ? 0 : read.i32(where, 0);
}

const ERRNO_NAMES: Record<number, string> = {
  1: "EPERM",
  2: "ENOENT",
  3: "ESRCH",
  9: "EBADF",
  13: "EACCES",
  22: "EINVAL",
  24: "EMFILE",
  38: "ENOSYS",
  98: "EADDRINUSE",
  99: "EADDRNOTAVAIL",
};
const errnoName = (code: number) => ERRNO_NAMES[code] ?? `errno ${code}`;
const failed = (call: string, c: Libc) => `${call} failed (${errnoName(errno(c))})`;

/** listen_inside's steps (listenInside.c.ts), by the number it returns them under. */
const STEPS: Record<number, string> = {
  1: "pipe2()",
  2: "clone()",
  3: "entering the sandbox's user namespace (setns)",
  4: "entering the sandbox's network namespace (setns)",
  5: "socket()",
  6: "bind(127.0.0.1)",
  7: "listen()",
  8: "dup3()",
};

const cString = (text: string) => Buffer.from(`${text}\0`);
const inode = (fd: number) => fstatSync(fd).ino;
const ownIno = (kind: "net" | "user") => statSync(`/proc/self/ns/${kind}`).ino;

/** The session network, made: its listening socket and the two namespaces, each a close-on-exec descriptor of this process. */
export interface InsideNetwork {
  listener: number;
  /** The holder's user namespace, which owns `net`: commands enter it first. */
  user: number;
  net: number;
}

/**
 * A listening socket on 127.0.0.1:`port` in the network namespace of holder `pid`, whose inode
 * was pinned as `netIno` when the holder was found ready, and descriptors of that namespace and
 * its user namespace, which keep both alive without the holder; or why not. `folder` is where
 * the C source is written for its one compilation.
 */
export function listenInside(
  pid: number,
  port: number,
  netIno: number,
  folder: string,
): InsideNetwork | { error: string } {
  const c = libc();
  const code = compiled(folder);
  const opened: number[] = [];
  const open = (path: string): number => {
    const fd = code.open_cloexec(cString(path));
    if (fd < 0) throw new Error(failed(`open(${path})`, c));
    opened.push(fd);
    return fd;
  };
  let into: number | undefined;
  try {
    const userFd = open(`/proc/${pid}/ns/user`);
    const netFd = open(`/proc/${pid}/ns/net`);
    // What is entered is what was pinned, and never Garuda's own namespaces.
    if (inode(netFd) !== netIno || netIno === ownIno("net"))
      return { error: "the sandbox network's holder is not in the namespace it reported ready in" };
    if (inode(userFd) === ownIno("user"))
      return { error: "the sandbox network's holder is not in a user namespace of its own" };
    into = code.open_cloexec(cString("/dev/null"));
    if (into < 0) return { error: failed("open(/dev/null)", c) };
    const result = code.listen_inside(userFd, netFd, port, into);
    if (result !== 0) {
      const step = Math.floor(result / 1000);
      return {
        error:
          step === 9
            ? "the sandbox network's listener ended without saying why"
            : `${STEPS[step] ?? `step ${step}`} failed (${errnoName(result % 1000)})`,
      };
    }
    const ns = c.ioctl(into, BigInt(SIOCGSKNS), 0n);
    if (ns < 0) return { error: failed("ioctl(SIOCGSKNS)", c) };
    const socketNet = inode(ns);
    closeSync(ns);
    if (socketNet !== netIno)
      return { error: "the sandbox network's socket is not in the sandbox's network namespace" };
    const made = { listener: into, user: userFd, net: netFd };
    into = undefined;
    opened.length = 0;
    return made;
  } catch (error) {
    return { error: messageOf(error) };
  } finally {
    for (const fd of opened) closeSync(fd);
    if (into !== undefined && into >= 0) closeSync(into);
  }
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
