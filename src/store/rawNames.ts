// File names as git gives them (bytes) in JavaScript strings, and back, without loss. Linux
// names are bytes: one that is not UTF-8 (a Latin-1 name from an old archive, or one a command
// made on purpose) decodes with U+FFFD in it, and that name matches no file when it is handed
// back to git, so an undo that must restore it would fail as a whole. As Python's
// "surrogateescape" does, each byte that is not part of valid UTF-8 becomes a lone surrogate
// (U+DC80..U+DCFF), which no valid name holds, and becomes that byte again on the way back.
const fatal = new TextDecoder("utf-8", { fatal: true });
const ESCAPED = /[\udc80-\udcff]/u; // (u: the low half of a pair is not matched)

/** The length of the valid UTF-8 sequence at `at`, or 0 when the byte there starts none. */
function sequenceAt(bytes: Uint8Array, at: number): number {
  const lead = bytes[at] as number;
  const next = (k: number) => (bytes[at + k] ?? 0) & 0xff;
  const tail = (k: number) => (next(k) & 0xc0) === 0x80;
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return tail(1) ? 2 : 0;
  if (lead >= 0xe0 && lead <= 0xef) {
    const low = lead === 0xe0 ? 0xa0 : 0x80; // no overlong forms
    const high = lead === 0xed ? 0x9f : 0xbf; // no UTF-16 surrogates
    return at + 2 < bytes.length && next(1) >= low && next(1) <= high && tail(2) ? 3 : 0;
  }
  if (lead >= 0xf0 && lead <= 0xf4) {
    const low = lead === 0xf0 ? 0x90 : 0x80;
    const high = lead === 0xf4 ? 0x8f : 0xbf;
    return at + 3 < bytes.length && next(1) >= low && next(1) <= high && tail(2) && tail(3) ? 4 : 0;
  }
  return 0;
}

/** `bytes` as a string: UTF-8, each byte outside valid UTF-8 as a lone surrogate. */
export function decodeRaw(bytes: Uint8Array): string {
  try {
    return fatal.decode(bytes);
  } catch {
    let text = "";
    let start = 0;
    for (let at = 0; at < bytes.length; ) {
      const length = sequenceAt(bytes, at);
      if (length > 0) {
        at += length;
        continue;
      }
      text +=
        Buffer.from(bytes.subarray(start, at)).toString("utf8") + String.fromCharCode(0xdc00 + (bytes[at] as number));
      start = ++at;
    }
    return text + Buffer.from(bytes.subarray(start)).toString("utf8");
  }
}

/** Whether `text` holds bytes decodeRaw() escaped. */
export const hasRawBytes = (text: string) => ESCAPED.test(text);

/** The bytes of a string decodeRaw() made (any other string: its UTF-8). */
export function encodeRaw(text: string): Buffer {
  if (!hasRawBytes(text)) return Buffer.from(text, "utf8");
  const parts: Buffer[] = [];
  let start = 0;
  for (let at = 0; at < text.length; at++) {
    const unit = text.charCodeAt(at);
    if (unit < 0xdc80 || unit > 0xdcff) continue;
    // A low surrogate after a high one is half of a real character, not an escaped byte.
    const previous = at > 0 ? text.charCodeAt(at - 1) : 0;
    if (previous >= 0xd800 && previous <= 0xdbff) continue;
    parts.push(Buffer.from(text.slice(start, at), "utf8"), Buffer.from([unit - 0xdc00]));
    start = at + 1;
  }
  parts.push(Buffer.from(text.slice(start), "utf8"));
  return Buffer.concat(parts);
}
