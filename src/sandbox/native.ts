// Garuda's only door to the C library: every system call that Bun and Node do not offer goes
// through here, by `dlopen` of the system's libc (glibc or musl), opened once per Native object.
// No C is compiled or loaded at run time besides libc itself (architecture rule: this is the only
// importer of bun:ffi, and nothing uses its `cc`).
//
// Loaded on demand (openNative): `garuda acp` answers initialize without bun:ffi. The library stays
// open for the life of the object: reapers call waitpid and inotify its calls until the end.
//
// The structures built here (msghdr, cmsghdr, sockaddr_in) are laid out for 64-bit Linux, the only
// kind Bun runs on; glibc's and musl's agree on them in little-endian byte order.

/** glibc, then musl (x64, arm64). */
const LIBC = ["libc.so.6", "libc.musl-x86_64.so.1", "libc.musl-aarch64.so.1"];

export const PR_SET_PDEATHSIG = 1;
export const PR_SET_DUMPABLE = 4;
export const PR_SET_CHILD_SUBREAPER = 36;
export const WNOHANG = 1;
export const MADV_DONTNEED = 4;

const AF_UNIX = 1;
const AF_INET = 2;
const SOCK_STREAM = 1;
const SOCK_CLOEXEC = 0o2000000;
const SOL_SOCKET = 1;
const SCM_RIGHTS = 1;
const MSG_DONTWAIT = 0x40;
const MSG_CMSG_CLOEXEC = 0x40000000;
/** ioctl on a socket: a descriptor of the network namespace it was made in. */
const SIOCGSKNS = 0x894c;
/** ioctl on a namespace: a descriptor of the user namespace that owns it. */
const NS_GET_USERNS = 0xb701;
/** The most descriptors one message passes here (a session network's three). */
const MAX_FDS = 4;

const ERRNO_NAMES: Record<number, string> = {
  1: "EPERM",
  2: "ENOENT",
  9: "EBADF",
  11: "EAGAIN",
  13: "EACCES",
  22: "EINVAL",
  24: "EMFILE",
  25: "ENOTTY",
  28: "ENOSPC",
  38: "ENOSYS",
  98: "EADDRINUSE",
  99: "EADDRNOTAVAIL",
};
export const errnoName = (code: number) => ERRNO_NAMES[code] ?? `errno ${code}`;

/** A call that failed: its name and errno. */
export class NativeError extends Error {
  constructor(
    readonly call: string,
    readonly errno: number,
  ) {
    super(`${call} failed (${errnoName(errno)})`);
    this.name = "NativeError";
  }
}

export interface Native {
  /** prctl(option, value, 0, 0, 0): 0 on success. */
  prctl(option: number, value: number): number;
  /** waitpid(pid, NULL, options): the pid reaped, 0 (WNOHANG, not yet) or -1. */
  waitpid(pid: number, options: number): number;
  /** madvise(start, length, advice): 0 on success. */
  madvise(start: bigint, length: bigint, advice: number): number;
  inotifyInit(flags: number): number;
  /** inotify_add_watch: the watch descriptor, or -1 with errno(). */
  inotifyAddWatch(fd: number, path: string, mask: number): number;
  inotifyRemoveWatch(fd: number, wd: number): number;
  close(fd: number): number;
  /** The calling thread's errno, right after a call that failed. */
  errno(): number;
  /** A connected pair of Unix stream sockets, both close-on-exec. */
  socketPair(): [number, number];
  /** Sends `fds` over Unix socket `socket` (SCM_RIGHTS), with one byte. */
  sendFds(socket: number, fds: number[]): void;
  /** Descriptors waiting on Unix socket `socket` (close-on-exec); never waits: [] when none is queued. */
  receiveFds(socket: number): number[];
  /** A listening TCP socket on 127.0.0.1:`port` of the calling process's network namespace. */
  listenLoopback(port: number): number;
  /** A new descriptor of the network namespace that socket `fd` belongs to. */
  socketNamespace(fd: number): number;
  /** A new descriptor of the user namespace that owns namespace `fd`. */
  owningUserNamespace(fd: number): number;
}

/** The C library, or undefined off Linux or when no known one loads. */
export function openNative(): Native | undefined {
  if (process.platform !== "linux") return undefined;
  const ffi = require("bun:ffi") as typeof import("bun:ffi");
  for (const name of LIBC) {
    try {
      return bind(ffi, name);
    } catch {
      // Not this C library: try the next one.
    }
  }
  return undefined;
}

function bind(ffi: typeof import("bun:ffi"), name: string): Native {
  const { dlopen, FFIType: T, ptr, read } = ffi;
  const { symbols: c } = dlopen(name, {
    prctl: { args: [T.i32, T.u64, T.u64, T.u64, T.u64], returns: T.i32 },
    waitpid: { args: [T.i32, T.ptr, T.i32], returns: T.i32 },
    madvise: { args: [T.u64, T.u64, T.i32], returns: T.i32 },
    inotify_init1: { args: [T.i32], returns: T.i32 },
    inotify_add_watch: { args: [T.i32, T.ptr, T.u32], returns: T.i32 },
    inotify_rm_watch: { args: [T.i32, T.i32], returns: T.i32 },
    close: { args: [T.i32], returns: T.i32 },
    socket: { args: [T.i32, T.i32, T.i32], returns: T.i32 },
    socketpair: { args: [T.i32, T.i32, T.i32, T.ptr], returns: T.i32 },
    bind: { args: [T.i32, T.ptr, T.u32], returns: T.i32 },
    listen: { args: [T.i32, T.i32], returns: T.i32 },
    sendmsg: { args: [T.i32, T.ptr, T.i32], returns: T.i64 },
    recvmsg: { args: [T.i32, T.ptr, T.i32], returns: T.i64 },
    ioctl: { args: [T.i32, T.u64, T.u64], returns: T.i32 },
    __errno_location: { args: [], returns: T.ptr },
  });
  const errno = (): number => {
    const at = c.__errno_location();
    return at === null ? 0 : read.i32(at, 0);
  };
  const check = (call: string, result: number | bigint): number => {
    if (Number(result) < 0) throw new NativeError(call, errno());
    return Number(result);
  };
  /** A msghdr over one byte and room for MAX_FDS descriptors; `fds` are written into it when given. */
  const message = (fds: number[] | undefined) => {
    const byte = new Uint8Array(1);
    const iov = new BigUint64Array([BigInt(ptr(byte)), 1n]);
    const count = fds?.length ?? MAX_FDS;
    const control = new Uint8Array(16 + 8 * Math.ceil((4 * count) / 8)); // CMSG_SPACE(4 * count)
    const cmsg = new DataView(control.buffer);
    if (fds) {
      cmsg.setBigUint64(0, BigInt(16 + 4 * count), true); // CMSG_LEN
      cmsg.setInt32(8, SOL_SOCKET, true);
      cmsg.setInt32(12, SCM_RIGHTS, true);
      fds.forEach((fd, at) => cmsg.setInt32(16 + 4 * at, fd, true));
    }
    const header = new Uint8Array(56);
    const fields = new DataView(header.buffer);
    fields.setBigUint64(16, BigInt(ptr(iov)), true); // msg_iov
    fields.setBigUint64(24, 1n, true); // msg_iovlen
    fields.setBigUint64(32, BigInt(ptr(control)), true); // msg_control
    fields.setBigUint64(40, BigInt(control.byteLength), true); // msg_controllen
    return { header, fields, control, cmsg, keep: [byte, iov] };
  };
  return {
    prctl: (option, value) => c.prctl(option, BigInt(value), 0n, 0n, 0n),
    waitpid: (pid, options) => c.waitpid(pid, null, options),
    madvise: (start, length, advice) => c.madvise(start, length, advice),
    inotifyInit: (flags) => c.inotify_init1(flags),
    inotifyAddWatch: (fd, path, mask) => c.inotify_add_watch(fd, ptr(Buffer.from(`${path}\0`)), mask),
    inotifyRemoveWatch: (fd, wd) => c.inotify_rm_watch(fd, wd),
    close: (fd) => c.close(fd),
    errno,
    socketPair() {
      const pair = new Int32Array(2);
      check("socketpair()", c.socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ptr(pair)));
      return [pair[0] as number, pair[1] as number];
    },
    sendFds(socket, fds) {
      if (fds.length === 0 || fds.length > MAX_FDS) throw new Error(`sendFds: 1 to ${MAX_FDS} descriptors`);
      const built = message(fds);
      check("sendmsg()", c.sendmsg(socket, ptr(built.header), 0));
    },
    receiveFds(socket) {
      const built = message(undefined);
      const got = c.recvmsg(socket, ptr(built.header), MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
      if (Number(got) < 0) {
        const code = errno();
        if (code === 11) return []; // EAGAIN: nothing queued
        throw new NativeError("recvmsg()", code);
      }
      const length = Number(built.fields.getBigUint64(40, true));
      if (length < 16) return [];
      const cmsgLength = Number(built.cmsg.getBigUint64(0, true));
      if (built.cmsg.getInt32(8, true) !== SOL_SOCKET || built.cmsg.getInt32(12, true) !== SCM_RIGHTS) return [];
      const fds: number[] = [];
      for (let at = 16; at + 4 <= cmsgLength; at += 4) fds.push(built.cmsg.getInt32(at, true));
      return fds;
    },
    listenLoopback(port) {
      const fd = check("socket()", c.socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
      try {
        const address = new Uint8Array(16);
        const view = new DataView(address.buffer);
        view.setUint16(0, AF_INET, true);
        view.setUint16(2, port, false); // network byte order
        address.set([127, 0, 0, 1], 4);
        check("bind(127.0.0.1)", c.bind(fd, ptr(address), address.byteLength));
        check("listen()", c.listen(fd, 4096));
        return fd;
      } catch (error) {
        c.close(fd);
        throw error;
      }
    },
    socketNamespace: (fd) => check("ioctl(SIOCGSKNS)", c.ioctl(fd, BigInt(SIOCGSKNS), 0n)),
    owningUserNamespace: (fd) => check("ioctl(NS_GET_USERNS)", c.ioctl(fd, BigInt(NS_GET_USERNS), 0n)),
  };
}
