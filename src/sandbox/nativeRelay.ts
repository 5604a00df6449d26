// The egress proxy's fast path for a connection it has let through (Linux): once the proxy has
// decided and sent what it had to send itself (the 200 of a CONNECT, the rewritten head of a
// plain request), the two TCP sockets are handed to a native thread that moves the bytes with
// recv() and send() through its own buffers (nativeRelay.c.ts), so no byte goes through
// JavaScript. Every check happens before this point and none looks at the relayed bytes (relay.ts
// relays them unread too), so the hand-over loosens nothing. Measured by bench/sandbox.ts: the JS
// relay costs the proxy Bun's copy of each read and an event-loop turn per chunk; the thread
// passes as much as a bare relay with no checks (bench/bareRelay.ts).
//
// The C code is compiled once per process (processNativeRelays: every session's proxy shares it;
// compiled code is never unloaded, so one compile per session grew the process each time) at the
// first hand-over, by the TinyCC built into Bun (bun:ffi cc), from a file written to that proxy's
// private folder; nothing is loaded before. Wherever that fails (no TinyCC on this platform,
// macOS) it is undefined and the proxies keep relaying in JavaScript, as they do for a connection
// whose thread is refused or that comes while MAX_NATIVE_RELAYS are busy.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Socket } from "bun";
import type { RelayEnd } from "./relay.ts";
import { NATIVE_RELAY_C } from "./nativeRelay.c.ts";

export interface NativeRelayConnection {
  /** Ends the relay: both sockets are shut down; `onDone` follows. */
  stop(): void;
}

export interface NativeRelays {
  /**
   * Relays between the sockets `a` and `b` (descriptors Bun owns and must not read, write or
   * close until `onDone`; pause them first) in a thread; undefined when it could not start, then
   * nothing was changed. `onDone` runs on the JS thread when both directions are finished.
   */
  start(a: number, b: number, onDone: () => void): NativeRelayConnection | undefined;
  /** Connections being relayed now. */
  readonly active: number;
}

/**
 * Native relays at once in this process; a connection past that is relayed in JavaScript. Each
 * costs a thread, two duplicate descriptors on top of the two sockets, and two 256 KiB buffers
 * (resident only as far as bytes have filled them: at most 16 MiB for all 32). A sandboxed
 * command that opens thousands of connections must not get thousands of threads.
 */
export const MAX_NATIVE_RELAYS = 32;

type Native = {
  relay_start(id: number, a: number, b: number, done: unknown, owned: Int32Array): number;
  relay_stop(a: number, b: number): void;
  relay_close(a: number, b: number): void;
};

/** Loads the native relay; undefined where it cannot be compiled or run here. */
export function loadNativeRelays(folder: string): NativeRelays | undefined {
  if (process.platform !== "linux") return undefined;
  let native: Native;
  let done: { ptr: unknown; close(): void };
  const waiting = new Map<number, { owned: Int32Array; onDone: () => void }>();
  try {
    // Loaded here, not at the top: the proxy starts (and ACP initialize runs) without bun:ffi.
    const { cc, FFIType, JSCallback } = require("bun:ffi") as typeof import("bun:ffi");
    const source = join(folder, "native-relay.c");
    writeFileSync(source, NATIVE_RELAY_C, { mode: 0o600 });
    const compiled = cc({
      source,
      symbols: {
        relay_start: {
          args: [FFIType.i32, FFIType.i32, FFIType.i32, FFIType.function, FFIType.ptr],
          returns: FFIType.i32,
        },
        relay_stop: { args: [FFIType.i32, FFIType.i32], returns: FFIType.void },
        relay_close: { args: [FFIType.i32, FFIType.i32], returns: FFIType.void },
      },
    });
    native = compiled.symbols as unknown as Native;
    done = new JSCallback(
      (id: number) => {
        const entry = waiting.get(id);
        if (!entry) return;
        waiting.delete(id);
        native.relay_close(entry.owned[0] as number, entry.owned[1] as number);
        entry.onDone();
      },
      { args: [FFIType.i32], returns: FFIType.void, threadsafe: true },
    );
  } catch {
    return undefined;
  }
  let counter = 0;
  return {
    get active() {
      return waiting.size;
    },
    start(a, b, onDone) {
      if (waiting.size >= MAX_NATIVE_RELAYS) return undefined;
      const id = ++counter;
      const owned = new Int32Array(2);
      waiting.set(id, { owned, onDone });
      if (native.relay_start(id, a, b, done.ptr, owned) !== 0) {
        waiting.delete(id);
        return undefined;
      }
      return {
        stop() {
          // Only while the thread may still use them: after done the duplicates are closed.
          if (waiting.has(id)) native.relay_stop(owned[0] as number, owned[1] as number);
        },
      };
    },
  };
}

/** Loaded at the first call (in `folder`), then the same for every proxy of this process; null: not here. */
let loadedRelays: NativeRelays | null | undefined;

/** The process's native relays, compiled at the first call; undefined where they cannot run. */
export function processNativeRelays(folder: string): NativeRelays | undefined {
  loadedRelays ??= loadNativeRelays(folder) ?? null;
  return loadedRelays ?? undefined;
}

type Handed = Socket<RelayEnd> & { fd?: number; pause?: () => void; resume?: () => void };

/** A linked pair can go to the native relay: both connected, nothing waiting on either side, no FIN passed yet. */
export function canRelayNatively(a: RelayEnd, b: RelayEnd): boolean {
  for (const end of [a, b]) {
    const fd = (end.socket as Handed | undefined)?.fd;
    if (
      typeof fd !== "number" ||
      fd < 0 ||
      end.queued > 0 ||
      end.ended ||
      end.closed ||
      end.endWhenFlushed ||
      end.paused
    )
      return false;
  }
  return true;
}

/**
 * Hands a linked pair (canRelayNatively) to the native relay, which owns both connections from then on:
 * the thread works on duplicates of the two descriptors, and Bun's sockets are closed at once
 * (each connection lives on in its duplicate), so Bun never reads, writes or reports on them
 * again — a paused Bun socket still drained a server's last bytes to the client when the server
 * hung up, beside the thread, which could reorder or lose them. `onDone` runs when the thread is
 * done. Undefined: the relay did not start, and both sockets read again (the JS relay goes on).
 */
export function relayNatively(
  relays: NativeRelays,
  a: RelayEnd,
  b: RelayEnd,
  onDone: () => void,
): NativeRelayConnection | undefined {
  const first = a.socket as Handed;
  const second = b.socket as Handed;
  first.pause?.();
  second.pause?.();
  const connection = relays.start(first.fd as number, second.fd as number, onDone);
  if (!connection) {
    first.resume?.();
    second.resume?.();
    return undefined;
  }
  a.handedOver = true;
  b.handedOver = true;
  // terminate() closes Bun's descriptor; it also sets SO_LINGER 0 on the socket, which the
  // native side clears before its last close (relay_close), so the end is an ordinary one.
  first.terminate();
  second.terminate();
  return connection;
}
