// Output kept from a command: with a cap, the head and the tail survive and the middle is cut
// (errors tend to be at the end, the command's own header at the start). Sizes are UTF-8 bytes;
// cuts never split a character.

/** The default cap for a command's result (bash tool: 30,000 bytes). */
export const DEFAULT_OUTPUT_BYTES = 30_000;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

const isContinuation = (byte: number | undefined) => byte !== undefined && (byte & 0xc0) === 0x80;

/** The longest prefix of `text` of at most `bytes` UTF-8 bytes. */
export function utf8Head(text: string, bytes: number): string {
  const encoded = encoder.encode(text);
  if (encoded.byteLength <= bytes) return text;
  let cut = Math.max(bytes, 0);
  while (cut > 0 && isContinuation(encoded[cut])) cut--;
  return decoder.decode(encoded.subarray(0, cut));
}

/** The longest suffix of `text` of at most `bytes` UTF-8 bytes. */
export function utf8Tail(text: string, bytes: number): string {
  const encoded = encoder.encode(text);
  if (encoded.byteLength <= bytes) return text;
  let cut = encoded.byteLength - Math.max(bytes, 0);
  while (cut < encoded.byteLength && isContinuation(encoded[cut])) cut++;
  return decoder.decode(encoded.subarray(cut));
}

/** Keeps the last `maxBytes` of what was pushed (roughly: whole chunks are dropped, the oldest kept one is trimmed). */
export class TailBuffer {
  private chunks: string[] = [];
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  push(text: string): void {
    if (text.length === 0) return;
    this.chunks.push(text);
    this.bytes += Buffer.byteLength(text);
    while (this.chunks.length > 1 && this.bytes - Buffer.byteLength(this.chunks[0] as string) >= this.maxBytes) {
      this.bytes -= Buffer.byteLength(this.chunks.shift() as string);
    }
  }

  text(): string {
    return utf8Tail(this.chunks.join(""), this.maxBytes);
  }
}

/** Head and tail of a stream of text, at most `maxBytes` in all (plus the cut marker). */
export class HeadTailBuffer {
  private head = "";
  private headBytes = 0;
  private readonly tail: TailBuffer;
  private total = 0;

  constructor(private readonly maxBytes: number = DEFAULT_OUTPUT_BYTES) {
    this.tail = new TailBuffer(maxBytes - Math.floor(maxBytes / 2));
  }

  push(text: string): void {
    if (text.length === 0) return;
    this.total += Buffer.byteLength(text);
    const room = Math.floor(this.maxBytes / 2) - this.headBytes;
    if (room > 0) {
      const part = utf8Head(text, room);
      this.head += part;
      this.headBytes += Buffer.byteLength(part);
      text = text.slice(part.length);
    }
    this.tail.push(text);
  }

  get truncated(): boolean {
    return this.total > this.maxBytes;
  }

  text(): string {
    if (!this.truncated) return this.head + this.tail.text();
    const tail = this.tail.text();
    const cut = this.total - this.headBytes - Buffer.byteLength(tail);
    return `${this.head}\n… [${cut} bytes of output cut] …\n${tail}`;
  }
}
