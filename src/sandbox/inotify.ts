// Linux inotify through the C library (native.ts), for the git guard (gitGuard/guard.ts). Node's fs.watch is not enough
// there: it cannot leave folders out, say when the kernel's watch limit is reached, or report a
// full queue (IN_Q_OVERFLOW, after which the caller rescans). Events are read as they come, by
// Bun's own event loop (a stream over the non-blocking descriptor): no timer wakes Garuda to look.
import { type Native, openNative } from "./native.ts";

const IN_MODIFY = 0x2;
const IN_ATTRIB = 0x4;
const IN_CLOSE_WRITE = 0x8;
export const IN_MOVED_FROM = 0x40;
export const IN_MOVED_TO = 0x80;
export const IN_CREATE = 0x100;
export const IN_DELETE = 0x200;
const IN_DELETE_SELF = 0x400;
const IN_MOVE_SELF = 0x800;
export const IN_Q_OVERFLOW = 0x4000;
export const IN_IGNORED = 0x8000;
export const IN_ISDIR = 0x40000000;
const IN_ONLYDIR = 0x01000000;
const IN_DONT_FOLLOW = 0x02000000;
const IN_EXCL_UNLINK = 0x04000000;
const IN_NONBLOCK = 0o4000;
const IN_CLOEXEC = 0o2000000;

/** What a folder watch reports: entries made, moved in or out, removed, written (also without a close). */
const FOLDER_EVENTS =
  IN_CREATE |
  IN_MOVED_TO |
  IN_MOVED_FROM |
  IN_DELETE |
  IN_CLOSE_WRITE |
  IN_MODIFY |
  IN_ATTRIB |
  IN_DELETE_SELF |
  IN_MOVE_SELF;

const ENOENT = 2;
const EACCES = 13;
const ENOTDIR = 20;
const ENOSPC = 28;
const ELOOP = 40;

export interface InotifyEvent {
  wd: number;
  mask: number;
  cookie: number;
  /** The entry's name inside the watched folder ("" for events about the folder itself). */
  name: string;
}

export type WatchResult = { wd: number } | { error: "limit" | "gone" | "denied" | "other" };

export interface Inotify {
  /** Watches a folder (a final symlink is not followed). "limit": the kernel's max_user_watches is reached. */
  watch(dir: string): WatchResult;
  unwatch(wd: number): void;
  /** Calls `onEvents` with the events as they come, in the kernel's order, until close(). */
  listen(onEvents: (events: InotifyEvent[]) => void): void;
  close(): Promise<void>;
}

/** The C library, whose inotify calls openInotify uses. */
export type Library = Native;

/** The C library's inotify calls, or undefined off Linux or without them; `native`: one already open. */
export async function loadInotify(native?: Native): Promise<Library | undefined> {
  if (process.platform !== "linux") return undefined;
  return native ?? openNative();
}

/** The events in `bytes` (whole events only; what is left over is returned for the next read). */
function parse(bytes: Uint8Array, decoder: TextDecoder): { events: InotifyEvent[]; rest: Uint8Array } {
  // (Whole events come from every read; a rest is only kept in case a chunk ever splits one.)
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const events: InotifyEvent[] = [];
  let at = 0;
  while (at + 16 <= bytes.length) {
    const length = view.getUint32(at + 12, true);
    if (at + 16 + length > bytes.length) break;
    const raw = bytes.subarray(at + 16, at + 16 + length);
    const end = raw.indexOf(0);
    events.push({
      wd: view.getInt32(at, true),
      mask: view.getUint32(at + 4, true),
      cookie: view.getUint32(at + 8, true),
      name: decoder.decode(end >= 0 ? raw.subarray(0, end) : raw),
    });
    at += 16 + length;
  }
  return { events, rest: bytes.slice(at) };
}

/** A new inotify instance, or undefined when the kernel refuses one (max_user_instances). */
export function openInotify(lib: Library): Inotify | undefined {
  const fd = lib.inotifyInit(IN_NONBLOCK | IN_CLOEXEC);
  if (fd < 0) return undefined;
  const decoder = new TextDecoder();
  let open = true;
  let reader: { cancel(): Promise<void> } | undefined;
  let reading: Promise<void> | undefined;
  return {
    watch(dir) {
      if (!open) return { error: "other" };
      const wd = lib.inotifyAddWatch(fd, dir, FOLDER_EVENTS | IN_ONLYDIR | IN_DONT_FOLLOW | IN_EXCL_UNLINK);
      if (wd >= 0) return { wd };
      const code = lib.errno();
      if (code === ENOSPC) return { error: "limit" };
      if (code === EACCES) return { error: "denied" };
      if (code === ENOENT || code === ENOTDIR || code === ELOOP) return { error: "gone" };
      return { error: "other" };
    },
    unwatch(wd) {
      if (open) lib.inotifyRemoveWatch(fd, wd);
    },
    listen(onEvents) {
      if (reader || !open) return;
      const stream = Bun.file(fd).stream();
      const own = stream.getReader();
      reader = own;
      reading = (async () => {
        let rest: Uint8Array = new Uint8Array(0);
        for (;;) {
          const { value, done } = await own.read();
          if (done || !open) break;
          const bytes = rest.length === 0 ? value : Buffer.concat([rest, value]);
          const parsed = parse(bytes, decoder);
          rest = parsed.rest;
          if (parsed.events.length > 0) onEvents(parsed.events);
        }
      })().catch(() => undefined);
    },
    async close() {
      if (!open) return;
      open = false;
      await reader?.cancel().catch(() => undefined);
      await reading;
      lib.close(fd);
    },
  };
}
