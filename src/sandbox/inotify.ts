// Linux inotify through bun:ffi, for the git guard (gitGuard.ts). Node's fs.watch is not enough
// there: under a flood of events it drops some without saying so, and it cannot leave folders
// out or say when the kernel's watch limit is reached. Here a full queue is reported
// (IN_Q_OVERFLOW, so the caller rescans), a watch that cannot be added says why, and reading
// never waits (the caller polls while sandboxed commands run).
import { FFIType, dlopen, ptr, read as readPointer } from "bun:ffi";

export const IN_MODIFY = 0x2;
export const IN_CLOSE_WRITE = 0x8;
export const IN_MOVED_FROM = 0x40;
export const IN_MOVED_TO = 0x80;
export const IN_CREATE = 0x100;
export const IN_DELETE = 0x200;
export const IN_DELETE_SELF = 0x400;
export const IN_MOVE_SELF = 0x800;
export const IN_Q_OVERFLOW = 0x4000;
export const IN_IGNORED = 0x8000;
export const IN_ISDIR = 0x40000000;
const IN_ONLYDIR = 0x01000000;
const IN_DONT_FOLLOW = 0x02000000;
const IN_EXCL_UNLINK = 0x04000000;
const IN_NONBLOCK = 0o4000;
const IN_CLOEXEC = 0o2000000;

/** What a folder watch reports: entries made, moved in or out, removed, written (also without a close). */
const FOLDER_EVENTS = IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_CLOSE_WRITE | IN_MODIFY | IN_DELETE_SELF | IN_MOVE_SELF;

const ENOENT = 2;
const EACCES = 13;
const ENOTDIR = 20;
const ENOSPC = 28;
const ELOOP = 40;

/** glibc, then musl (x64, arm64). */
const LIBC = ["libc.so.6", "libc.musl-x86_64.so.1", "libc.musl-aarch64.so.1"];
const READ_BYTES = 256 * 1024;

export interface InotifyEvent {
  wd: number;
  mask: number;
  cookie: number;
  /** The entry's name inside the watched folder ("" for events about the folder itself). */
  name: string;
}

export type WatchResult = { wd: number } | { error: "limit" | "gone" | "other" };

export interface Inotify {
  /** Watches a folder (a final symlink is not followed). "limit": the kernel's max_user_watches is reached. */
  watch(dir: string): WatchResult;
  unwatch(wd: number): void;
  /** Every event queued now; never waits. */
  drain(): InotifyEvent[];
  close(): void;
}

function bind(name: string) {
  return dlopen(name, {
    inotify_init1: { args: [FFIType.i32], returns: FFIType.i32 },
    inotify_add_watch: { args: [FFIType.i32, FFIType.ptr, FFIType.u32], returns: FFIType.i32 },
    inotify_rm_watch: { args: [FFIType.i32, FFIType.i32], returns: FFIType.i32 },
    read: { args: [FFIType.i32, FFIType.ptr, FFIType.u64], returns: FFIType.i64 },
    close: { args: [FFIType.i32], returns: FFIType.i32 },
    __errno_location: { args: [], returns: FFIType.ptr },
  });
}

type Library = ReturnType<typeof bind>;

/** The C library's inotify calls, or undefined off Linux or without them. */
export function loadInotify(): Library | undefined {
  if (process.platform !== "linux") return undefined;
  for (const name of LIBC) {
    try {
      return bind(name);
    } catch {
      // Not this C library: try the next one.
    }
  }
  return undefined;
}

/** A new inotify instance, or undefined when the kernel refuses one (max_user_instances). */
export function openInotify(lib: Library): Inotify | undefined {
  const fd = lib.symbols.inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (fd < 0) return undefined;
  const buffer = new Uint8Array(READ_BYTES);
  const view = new DataView(buffer.buffer);
  const decoder = new TextDecoder();
  const errno = () => {
    const at = lib.symbols.__errno_location();
    return at === null ? 0 : readPointer.i32(at, 0);
  };
  let open = true;
  return {
    watch(dir) {
      if (!open) return { error: "other" };
      const wd = lib.symbols.inotify_add_watch(fd, ptr(Buffer.from(`${dir}\0`)), FOLDER_EVENTS | IN_ONLYDIR | IN_DONT_FOLLOW | IN_EXCL_UNLINK);
      if (wd >= 0) return { wd };
      const code = errno();
      if (code === ENOSPC) return { error: "limit" };
      if (code === ENOENT || code === ENOTDIR || code === ELOOP || code === EACCES) return { error: "gone" };
      return { error: "other" };
    },
    unwatch(wd) {
      if (open) lib.symbols.inotify_rm_watch(fd, wd);
    },
    drain() {
      const events: InotifyEvent[] = [];
      while (open) {
        const got = Number(lib.symbols.read(fd, ptr(buffer), BigInt(READ_BYTES)));
        if (got <= 0) break; // EAGAIN: nothing queued
        for (let at = 0; at + 16 <= got; ) {
          const length = view.getUint32(at + 12, true);
          const raw = buffer.subarray(at + 16, at + 16 + length);
          const end = raw.indexOf(0);
          events.push({
            wd: view.getInt32(at, true),
            mask: view.getUint32(at + 4, true),
            cookie: view.getUint32(at + 8, true),
            name: decoder.decode(end >= 0 ? raw.subarray(0, end) : raw),
          });
          at += 16 + length;
        }
      }
      return events;
    },
    close() {
      if (!open) return;
      open = false;
      lib.symbols.close(fd);
    },
  };
}
