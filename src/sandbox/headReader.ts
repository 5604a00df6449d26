// A request head read as it arrives, for the egress proxy. Each byte is looked at once and copied
// at most twice (the buffer doubles), so a client that sends its head a byte at a time costs what
// one that sends it whole does. One header is watched (the proxy's token): its value is known as
// soon as its line is complete, so a connection without the right token is dropped before the
// rest of its head is read.
import { MAX_HEAD_BYTES } from "./httpHead.ts";

export type HeadProgress =
  /** No complete head yet. */
  | { kind: "more" }
  /** The head's text (up to its last header line's CRLF) and the bytes after its blank line. */
  | { kind: "head"; text: string; rest: Uint8Array }
  /** MAX_HEAD_BYTES and no end. */
  | { kind: "tooLarge" };

const CR = 13;
const LF = 10;

export class HeadReader {
  private buffer = new Uint8Array(0);
  private length = 0;
  /** Bytes looked at for line ends. */
  private scanned = 0;
  private lineStart = 0;
  private readonly watchedPrefix: string;
  /** The first value of the watched header, once its line is complete. */
  watched: string | undefined;

  /** `watch`: the header whose first value `watched` gives as soon as its line is complete. */
  constructor(watch: string) {
    this.watchedPrefix = `${watch.toLowerCase()}:`;
  }

  push(bytes: Uint8Array): HeadProgress {
    this.append(bytes);
    const data = this.buffer;
    for (let i = Math.max(this.scanned, 1); i < this.length; i++) {
      if (data[i] !== LF || data[i - 1] !== CR) continue;
      const lineEnd = i - 1;
      if (lineEnd === this.lineStart) {
        if (lineEnd > MAX_HEAD_BYTES) return { kind: "tooLarge" };
        const text = new TextDecoder().decode(data.subarray(0, lineEnd));
        return { kind: "head", text, rest: data.slice(i + 1, this.length) };
      }
      if (this.lineStart > 0) this.headerLine(data.subarray(this.lineStart, lineEnd));
      this.lineStart = i + 1;
    }
    this.scanned = this.length;
    return this.length > MAX_HEAD_BYTES ? { kind: "tooLarge" } : { kind: "more" };
  }

  private headerLine(line: Uint8Array): void {
    if (this.watched !== undefined || line.byteLength < this.watchedPrefix.length) return;
    const text = new TextDecoder().decode(line);
    if (text.slice(0, this.watchedPrefix.length).toLowerCase() === this.watchedPrefix)
      this.watched = text.slice(this.watchedPrefix.length).trim();
  }

  private append(bytes: Uint8Array): void {
    if (this.length + bytes.byteLength > this.buffer.byteLength) {
      const grown = new Uint8Array(Math.max(this.length + bytes.byteLength, this.buffer.byteLength * 2, 1024));
      grown.set(this.buffer.subarray(0, this.length));
      this.buffer = grown;
    }
    this.buffer.set(bytes, this.length);
    this.length += bytes.byteLength;
  }
}
