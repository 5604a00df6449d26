// What the text tools know about a loaded file (checkedFile.ts loads it): size limit, folders,
// binary detection and UTF-8 decoding that keeps a byte-order mark so an edit writes it back unchanged.

export const MAX_TEXT_BYTES = 10 * 1024 * 1024;
const SAMPLE = 8192;

export type LoadedFile =
  /** `links`: the file's number of names (hard links); `dev` and `ino`: the identity of the file read (its fstat). */
  | {
      kind: "text";
      bytes: Uint8Array;
      text: string;
      mtimeMs: number;
      mode: number;
      invalidBytes: number;
      links: number;
      dev: number;
      ino: number;
    }
  /** `bytes`: what was read (an image attached by an @-mention is sent as it is). */
  | { kind: "binary"; what: string; size: number; bytes?: Uint8Array }
  | { kind: "folder" }
  | { kind: "missing" }
  | { kind: "too_big"; size: number }
  | { kind: "special" };

const SIGNATURES: ReadonlyArray<[number[], string, number?]> = [
  [[0x89, 0x50, 0x4e, 0x47], "a PNG image"],
  [[0xff, 0xd8, 0xff], "a JPEG image"],
  [[0x47, 0x49, 0x46, 0x38], "a GIF image"],
  [[0x25, 0x50, 0x44, 0x46], "a PDF document"],
  [[0x50, 0x4b, 0x03, 0x04], "a ZIP archive (or a file based on ZIP: jar, docx, xlsx …)"],
  [[0x1f, 0x8b], "a gzip archive"],
  [[0x7f, 0x45, 0x4c, 0x46], "an ELF executable or library"],
  [[0x00, 0x61, 0x73, 0x6d], "a WebAssembly module"],
  [[0x53, 0x51, 0x4c, 0x69, 0x74, 0x65], "an SQLite database"],
  [[0xcf, 0xfa, 0xed, 0xfe], "a Mach-O executable"],
  [[0xca, 0xfe, 0xba, 0xbe], "a Java class file or a Mach-O universal binary"],
  [[0x52, 0x49, 0x46, 0x46], "a RIFF media file (WAV, AVI, WebP …)"],
  [[0x66, 0x74, 0x79, 0x70], "an MP4/QuickTime media file", 4],
];

function startsWith(bytes: Uint8Array, signature: number[], at = 0): boolean {
  return signature.every((byte, i) => bytes[at + i] === byte);
}

/** Counts bytes that are not part of a valid UTF-8 sequence (a cut sequence at `end` is not counted). */
export function invalidUtf8Bytes(bytes: Uint8Array, end = bytes.length): number {
  let bad = 0;
  let i = 0;
  while (i < end) {
    const b = bytes[i] as number;
    if (b < 0x80) {
      i++;
      continue;
    }
    const need = b >= 0xc2 && b <= 0xdf ? 1 : b >= 0xe0 && b <= 0xef ? 2 : b >= 0xf0 && b <= 0xf4 ? 3 : -1;
    if (need < 0) {
      bad++;
      i++;
      continue;
    }
    if (i + need >= end && end < bytes.length) break;
    let ok = true;
    for (let k = 1; k <= need; k++) if (((bytes[i + k] ?? 0) & 0xc0) !== 0x80) ok = false;
    if (ok) i += need + 1;
    else {
      bad++;
      i++;
    }
  }
  return bad;
}

/** Undefined for text; else what the file seems to be, for a message. */
export function binaryKind(bytes: Uint8Array): string | undefined {
  for (const [signature, what, at] of SIGNATURES) if (startsWith(bytes, signature, at ?? 0)) return what;
  const end = Math.min(bytes.length, SAMPLE);
  let controls = 0;
  for (let i = 0; i < end; i++) {
    const b = bytes[i] as number;
    if (b === 0) return "a binary file (it contains NUL bytes)";
    if (b < 0x09 || (b > 0x0d && b < 0x20 && b !== 0x1b)) controls++;
  }
  if (end === 0) return undefined;
  const invalid = invalidUtf8Bytes(bytes, end);
  if ((invalid + controls) / end > 0.1) return "a binary file, or text in an encoding other than UTF-8";
  return undefined;
}

const decoder = new TextDecoder("utf-8", { ignoreBOM: true });

/** UTF-8 text with a byte-order mark kept as U+FEFF, so it survives a round trip. */
export function decodeText(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}

export function formatBytes(size: number): string {
  if (size < 1024) return `${size} bytes`;
  if (size < 1024 * 1024) return `${(size / 1024).toFixed(1)} KB`;
  return `${(size / 1024 / 1024).toFixed(1)} MB`;
}

/** The number of lines as a reader counts them (a final newline does not start another line). */
export function countLines(text: string): number {
  if (text.length === 0) return 0;
  let n = 1;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) n++;
  return text.endsWith("\n") ? n - 1 : n;
}

/** 1-based line number of a character offset. */
export function lineAt(text: string, index: number): number {
  let n = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < index; i = text.indexOf("\n", i + 1)) n++;
  return n;
}
