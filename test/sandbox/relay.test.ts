import { describe, expect, test } from "bun:test";
import type { Socket } from "bun";
import {
  HIGH_WATER,
  type RelayEnd,
  link,
  relayData,
  relayDrain,
  relayEnd,
  relayEnded,
  relayHandlers,
} from "../../src/sandbox/relay.ts";

/** A socket that takes at most `room` bytes until `take()` frees more, and records what happened. */
function fakeSocket(end: RelayEnd, room = Number.POSITIVE_INFINITY) {
  const fake = {
    room,
    written: [] as Uint8Array[],
    writes: 0,
    pauses: 0,
    resumes: 0,
    ended: false,
    shut: false,
    write(bytes: Uint8Array): number {
      fake.writes++;
      const n = Math.min(bytes.byteLength, fake.room);
      fake.room -= n;
      if (n > 0) fake.written.push(bytes.subarray(0, n));
      return n;
    },
    end() {
      fake.ended = true;
    },
    shutdown() {
      fake.shut = true;
    },
    pause() {
      fake.pauses++;
    },
    resume() {
      fake.resumes++;
    },
    /** The reader took everything: room for `room` more bytes, and Bun says so with `drain`. */
    take(more: number) {
      fake.room = more;
      relayHandlers.drain(fake as unknown as Socket<RelayEnd>);
    },
    data: end,
    received: () => Buffer.concat(fake.written),
  };
  end.socket = fake as unknown as Socket<RelayEnd>;
  return fake;
}

function pair(room = Number.POSITIVE_INFINITY) {
  const a = relayEnd();
  const b = relayEnd();
  const reader = fakeSocket(a);
  const writer = fakeSocket(b, room);
  link(a, b);
  return { a, b, reader, writer };
}

describe("relay", () => {
  test("a chunk the peer takes whole is written once, not queued, and nobody is paused", () => {
    const { a, b, reader, writer } = pair();
    const chunk = new Uint8Array(64 * 1024).fill(1);
    relayData(a, chunk);
    expect(writer.writes).toBe(1);
    expect(writer.written[0]?.buffer).toBe(chunk.buffer);
    expect(b.queued).toBe(0);
    expect(reader.pauses).toBe(0);
  });

  test(
    "the unwritten rest waits as a view of the same bytes (no copy); the reader " +
      "pauses only past HIGH_WATER and resumes once all is written",
    () => {
      const { a, b, reader, writer } = pair(100);
      const chunks = [0, 1, 2, 3].map((k) => new Uint8Array(HIGH_WATER / 2).fill(k));
      relayData(a, chunks[0] as Uint8Array);
      expect(b.queued).toBe(HIGH_WATER / 2 - 100);
      expect(b.queue[0]?.buffer).toBe((chunks[0] as Uint8Array).buffer);
      expect(reader.pauses).toBe(0);
      relayData(a, chunks[1] as Uint8Array);
      expect(writer.writes).toBe(1); // nothing is tried while bytes wait for `drain`
      expect(reader.pauses).toBe(0);
      relayData(a, chunks[2] as Uint8Array);
      expect(b.queued).toBeGreaterThan(HIGH_WATER);
      expect(reader.pauses).toBe(1);
      relayData(a, chunks[3] as Uint8Array); // already paused: Bun may still hand over what it had read
      expect(reader.pauses).toBe(1);
      writer.take(HIGH_WATER);
      expect(reader.resumes).toBe(0);
      writer.take(Number.POSITIVE_INFINITY);
      expect(b.queued).toBe(0);
      expect(reader.resumes).toBe(1);
      expect(writer.received()).toEqual(Buffer.concat(chunks));
    },
  );

  test(
    "a FIN waits until everything queued is written, then half-closes the peer (it " +
      "may still answer); a closed end's peer is closed",
    () => {
      const { a, b, reader, writer } = pair(10);
      relayData(a, new TextEncoder().encode("hello, world"));
      relayEnded(a);
      expect(b.endWhenFlushed).toBe(true);
      expect(writer.shut).toBe(false);
      writer.take(100);
      expect(writer.shut).toBe(true);
      expect(writer.ended).toBe(false);
      expect(writer.received().toString()).toBe("hello, world");
      relayData(b, new TextEncoder().encode("the answer"));
      expect(reader.received().toString()).toBe("the answer");
      relayHandlers.close(reader as unknown as Socket<RelayEnd>);
      expect(writer.ended).toBe(true);
    },
  );

  test("bytes read before the ends are linked are kept and passed on in order", () => {
    const a = relayEnd();
    const b = relayEnd();
    fakeSocket(a);
    const writer = fakeSocket(b);
    relayData(a, new TextEncoder().encode("early "));
    relayData(a, new TextEncoder().encode("bytes"));
    expect(writer.writes).toBe(0);
    link(a, b);
    relayData(a, new TextEncoder().encode(" then more"));
    expect(writer.received().toString()).toBe("early bytes then more");
  });

  test("a peer not connected yet gets everything once it opens, and the reader is let go", () => {
    const a = relayEnd();
    const b = relayEnd();
    const reader = fakeSocket(a);
    link(a, b);
    relayData(a, new Uint8Array(HIGH_WATER + 1).fill(7));
    expect(reader.pauses).toBe(1);
    const writer = fakeSocket(b);
    relayDrain(b); // what relayHandlers.open does
    expect(writer.received().byteLength).toBe(HIGH_WATER + 1);
    expect(reader.resumes).toBe(1);
  });

  test(
    "Bun gives each read a buffer of its own that stays valid, which the relay " + "keeps instead of copying",
    async () => {
      const size = 8 * 1024 * 1024;
      const source = new Uint8Array(size);
      for (let i = 0; i < size; i++) source[i] = (i * 7 + (i >> 16)) & 0xff;
      const chunks: Uint8Array[] = [];
      let got = 0;
      const { promise, resolve } = Promise.withResolvers<void>();
      const server = Bun.listen({
        hostname: "127.0.0.1",
        port: 0,
        socket: {
          binaryType: relayHandlers.binaryType,
          data(_socket, bytes: Uint8Array) {
            chunks.push(bytes);
            got += bytes.byteLength;
            if (got === size) resolve();
          },
        },
      });
      let sent = 0;
      const pump = (socket: { write(bytes: Uint8Array): number }) => {
        while (sent < size) {
          const written = socket.write(source.subarray(sent));
          if (written <= 0) return;
          sent += written;
        }
      };
      const client = await Bun.connect({
        hostname: "127.0.0.1",
        port: server.port,
        socket: { data() {}, drain: pump },
      });
      try {
        pump(client);
        await promise;
        expect(chunks.length).toBeGreaterThan(1);
        expect(new Set(chunks.map((chunk) => chunk.buffer)).size).toBe(chunks.length);
        expect(Buffer.concat(chunks).equals(source)).toBe(true);
      } finally {
        client.end();
        server.stop(true);
      }
    },
  );
});
