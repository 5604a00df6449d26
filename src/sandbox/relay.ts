// Byte relay between two Bun sockets, with backpressure and half-close: what the egress proxy
// does after CONNECT and what the bridge does for every connection. A socket's `data` is its
// RelayEnd; each end knows its peer. Bytes read on one end are written straight to the peer;
// only what the peer's socket cannot take yet waits in the peer's queue, and the reading end is
// paused while that queue holds more than HIGH_WATER bytes.
//
// It carries every byte that leaves a sandbox: in the egress proxy after its checks, and in the
// per-command bridge (bridge.ts, where nsenter is missing). A chunk costs one write() when
// the peer keeps up, and nothing is copied: Bun hands `data` a fresh buffer for
// each read that stays valid afterwards, so the unwritten rest waits as a view of it. Pausing
// only past HIGH_WATER, not on every partial write (the usual case when a 512 KiB TCP read meets
// a ~208 KiB Unix socket buffer), saves Bun's epoll_ctl churn. What is left is the kernel's and
// Bun's own copying: bench/sandbox.ts says what that costs and why.
import type { Socket } from "bun";

export interface RelayEnd {
  socket: Socket<RelayEnd> | undefined;
  peer: RelayEnd | undefined;
  /** Bytes waiting to be written to this end's socket (views, never copies). */
  queue: Uint8Array[];
  /** Their total length. */
  queued: number;
  /** Finish this socket's writing once the queue is empty (the peer has finished sending). */
  endWhenFlushed: boolean;
  closed: boolean;
  /** The socket has finished sending (FIN). */
  ended: boolean;
  /** Reading from this end's socket is paused because its peer's queue is full. */
  paused: boolean;
  /** Bytes read before the end had a peer (a server that speaks first, during the proxy's decision). */
  early: Uint8Array[];
}

/**
 * Bytes an end may hold for its socket before its peer stops reading: a reader one 512 KiB read
 * ahead of its writer is not paused for it, and a connection holds at most this plus one read
 * per direction.
 */
export const HIGH_WATER = 512 * 1024;

/** Bun sockets have pause() and resume() at run time; some bun-types versions do not declare them. */
type Pausable = { pause?: () => void; resume?: () => void };

export function relayEnd(): RelayEnd {
  return {
    socket: undefined,
    peer: undefined,
    queue: [],
    queued: 0,
    endWhenFlushed: false,
    closed: false,
    ended: false,
    paused: false,
    early: [],
  };
}

/** Pairs two ends; what either read or finished before is passed on now. */
export function link(a: RelayEnd, b: RelayEnd): void {
  a.peer = b;
  b.peer = a;
  for (const [from, to] of [
    [a, b],
    [b, a],
  ] as const) {
    for (const chunk of from.early) sendTo(to, chunk);
    from.early = [];
    if (from.ended || from.closed) relayEnded(from);
  }
}

function pauseReading(end: RelayEnd | undefined): void {
  if (!end || end.paused || end.closed || !end.socket) return;
  end.paused = true;
  (end.socket as Pausable).pause?.();
}

function resumeReading(end: RelayEnd | undefined): void {
  if (!end?.paused) return;
  end.paused = false;
  if (!end.closed) (end.socket as Pausable | undefined)?.resume?.();
}

/**
 * Everything for this socket was written and its peer will send no more. While the socket may
 * still send (it has not ended and its peer is still there to take it) only the write side is
 * shut (a FIN: the request of a client that half-closes still gets its answer); otherwise it is
 * closed. Bun's end() closes the whole socket, so a half-close has to be shutdown().
 */
function finishWriting(end: RelayEnd, socket: Socket<RelayEnd>): void {
  if (end.ended || !end.peer || end.peer.closed) socket.end();
  else socket.shutdown();
}

/** Writes what the socket takes now; the rest waits. Returns false while bytes are waiting. */
function flush(end: RelayEnd): boolean {
  const socket = end.socket;
  if (!socket || end.closed) return end.queued === 0;
  const queue = end.queue;
  while (queue.length > 0) {
    const chunk = queue[0] as Uint8Array;
    const written = socket.write(chunk);
    if (written >= chunk.byteLength) {
      queue.shift();
      end.queued -= chunk.byteLength;
      continue;
    }
    if (written > 0) {
      queue[0] = chunk.subarray(written);
      end.queued -= written;
    }
    return false;
  }
  if (end.endWhenFlushed) finishWriting(end, socket);
  return true;
}

/**
 * Sends bytes to `end`'s socket: written now if it takes them, else (the rest, or everything
 * before the socket connects) queued. `bytes` is kept, not copied: the caller must not reuse it.
 */
export function sendTo(end: RelayEnd, bytes: Uint8Array): void {
  if (end.closed || bytes.byteLength === 0) return;
  let rest = bytes;
  const socket = end.socket;
  if (end.queued === 0 && socket) {
    const written = socket.write(bytes);
    if (written >= bytes.byteLength) {
      if (end.endWhenFlushed) finishWriting(end, socket);
      return;
    }
    if (written > 0) rest = bytes.subarray(written);
  }
  end.queue.push(rest);
  end.queued += rest.byteLength;
  if (end.queued > HIGH_WATER) pauseReading(end.peer);
}

/** Bytes read from `from`'s socket: on to its peer, or kept until it has one. */
export function relayData(from: RelayEnd, bytes: Uint8Array): void {
  const peer = from.peer;
  if (peer) sendTo(peer, bytes);
  else from.early.push(bytes);
}

/** The socket can take more: write what waits, then let the peer read again. */
export function relayDrain(end: RelayEnd): void {
  if (end.queued === 0 && !end.endWhenFlushed) {
    resumeReading(end.peer);
    return;
  }
  if (flush(end)) resumeReading(end.peer);
}

/** `from` will send no more (FIN): the peer's write side ends once everything reached it. */
export function relayEnded(from: RelayEnd): void {
  from.ended = true;
  const peer = from.peer;
  if (!peer || peer.closed) return;
  peer.endWhenFlushed = true;
  flush(peer);
}

/** `end`'s socket is gone: the peer gets what is still queued for it, then is closed. */
export function relayClosed(end: RelayEnd): void {
  end.closed = true;
  end.queue = [];
  end.queued = 0;
  const peer = end.peer;
  if (!peer || peer.closed) return;
  peer.endWhenFlushed = true;
  flush(peer);
}

/** Socket handlers for an end whose whole life is relaying (the bridge, the proxy's upstream side). */
export const relayHandlers = {
  binaryType: "uint8array" as const,
  open(socket: Socket<RelayEnd>) {
    socket.data.socket = socket;
    relayDrain(socket.data);
  },
  data(socket: Socket<RelayEnd>, bytes: Uint8Array) {
    relayData(socket.data, bytes);
  },
  drain(socket: Socket<RelayEnd>) {
    relayDrain(socket.data);
  },
  end(socket: Socket<RelayEnd>) {
    relayEnded(socket.data);
  },
  close(socket: Socket<RelayEnd>) {
    relayClosed(socket.data);
  },
  error(socket: Socket<RelayEnd>) {
    relayClosed(socket.data);
  },
};

/**
 * Handlers for the bridge's listener: every connection is relayed to the Unix socket at `socketPath` (the egress
 * proxy's).
 */
export function forwardHandlers(socketPath: string) {
  return {
    ...relayHandlers,
    open(client: Socket<RelayEnd>) {
      const upstream = relayEnd();
      client.data = { ...relayEnd(), socket: client };
      link(client.data, upstream);
      Bun.connect<RelayEnd>({ unix: socketPath, data: upstream, allowHalfOpen: true, socket: relayHandlers }).catch(
        () => client.end(),
      );
    },
  };
}
