// Byte relay between two Bun sockets, with backpressure and half-close: what the egress proxy
// does after CONNECT and what the bridge does for every connection. A socket's `data` is its
// RelayEnd; each end knows its peer. Bytes read on one end are written to the peer; what the peer
// cannot take yet waits in the peer's queue, and the reading end is paused until it drains.
import type { Socket } from "bun";

export interface RelayEnd {
  socket: Socket<RelayEnd> | undefined;
  peer: RelayEnd | undefined;
  /** Bytes waiting to be written to this end's socket. */
  queue: Uint8Array[];
  /** End this socket's write side once the queue is empty (the peer has finished sending). */
  endWhenFlushed: boolean;
  closed: boolean;
  /** The socket has finished sending (FIN). */
  ended: boolean;
  /** Bytes read before the end had a peer (a server that speaks first, during the proxy's decision). */
  early: Uint8Array[];
}

/** Bun sockets have pause() and resume() at run time; bun-types does not declare them. */
type Pausable = { pause?: () => void; resume?: () => void };

export function relayEnd(): RelayEnd {
  return { socket: undefined, peer: undefined, queue: [], endWhenFlushed: false, closed: false, ended: false, early: [] };
}

/** Pairs two ends; what either read or finished before is passed on now. */
export function link(a: RelayEnd, b: RelayEnd): void {
  a.peer = b;
  b.peer = a;
  for (const [from, to] of [[a, b], [b, a]] as const) {
    for (const chunk of from.early) sendTo(to, chunk);
    from.early = [];
    if (from.ended || from.closed) relayEnded(from);
  }
}

function pause(end: RelayEnd | undefined): void {
  (end?.socket as Pausable | undefined)?.pause?.();
}

function resume(end: RelayEnd | undefined): void {
  if (end && !end.closed) (end.socket as Pausable | undefined)?.resume?.();
}

/** Writes what the socket takes now; the rest waits. Returns false while bytes are waiting. */
function flush(end: RelayEnd): boolean {
  const socket = end.socket;
  if (!socket || end.closed) return end.queue.length === 0;
  while (end.queue.length > 0) {
    const chunk = end.queue[0] as Uint8Array;
    const written = socket.write(chunk);
    if (written >= chunk.byteLength) {
      end.queue.shift();
      continue;
    }
    end.queue[0] = chunk.subarray(Math.max(written, 0));
    return false;
  }
  if (end.endWhenFlushed) socket.end();
  return true;
}

/** Sends bytes to `end`'s socket (queueing what it cannot take now, or everything before it connects). */
export function sendTo(end: RelayEnd, bytes: Uint8Array): void {
  if (end.closed || bytes.byteLength === 0) return;
  let rest = bytes;
  if (end.queue.length === 0 && end.socket) {
    const written = end.socket.write(bytes);
    if (written >= bytes.byteLength) {
      if (end.endWhenFlushed) end.socket.end();
      return;
    }
    rest = bytes.subarray(Math.max(written, 0));
  }
  end.queue.push(new Uint8Array(rest)); // a copy: the caller's buffer may be reused
  pause(end.peer);
}

/** Bytes read from `from`'s socket: on to its peer, or kept until it has one. */
export function relayData(from: RelayEnd, bytes: Uint8Array): void {
  if (from.peer) sendTo(from.peer, bytes);
  else from.early.push(new Uint8Array(bytes));
}

/** The socket can take more: write what waits, then let the peer read again. */
export function relayDrain(end: RelayEnd): void {
  if (flush(end)) resume(end.peer);
}

/** `from` will send no more: end the peer's write side once everything reached it. */
export function relayEnded(from: RelayEnd): void {
  from.ended = true;
  const peer = from.peer;
  if (!peer || peer.closed) return;
  peer.endWhenFlushed = true;
  flush(peer);
}

/** `end`'s socket is gone: the peer gets what is still queued for it, then closes. */
export function relayClosed(end: RelayEnd): void {
  end.closed = true;
  end.queue = [];
  const peer = end.peer;
  if (!peer || peer.closed) return;
  peer.endWhenFlushed = true;
  flush(peer);
}

/** Socket handlers for an end whose whole life is relaying (the bridge, the proxy's upstream side). */
export const relayHandlers = {
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
