// Release archives and their checksums. The tar and zip writers are ours (regular files only)
// so an archive keeps the executable bit, names no build machine user, is byte-identical for
// identical input, and needs no `tar` or `zip` program on the build machine.
import { writeFileSync } from "node:fs";
import { basename } from "node:path";

const BLOCK = 512;

function putString(header: Uint8Array, offset: number, length: number, value: string): void {
  const bytes = new TextEncoder().encode(value);
  if (bytes.length > length) throw new Error(`tar header field too long: ${value}`);
  header.set(bytes, offset);
}

function putOctal(header: Uint8Array, offset: number, length: number, value: number): void {
  // length - 1 octal digits, then NUL.
  const digits = value.toString(8).padStart(length - 1, "0");
  if (digits.length > length - 1) throw new Error(`tar header value too large: ${value}`);
  putString(header, offset, length, `${digits}\0`);
}

export interface ArchiveEntry {
  name: string;
  data: Uint8Array<ArrayBuffer>;
  mode: number;
}

/** An uncompressed ustar archive of regular files, owned by root:root, with mtime `mtime` (s). */
export function tar(entries: ArchiveEntry[], mtime: number): Uint8Array<ArrayBuffer> {
  const size = entries.reduce((sum, e) => sum + BLOCK + Math.ceil(e.data.length / BLOCK) * BLOCK, 0) + 2 * BLOCK;
  const out = new Uint8Array(size);
  let offset = 0;
  for (const entry of entries) {
    const header = out.subarray(offset, offset + BLOCK);
    putString(header, 0, 100, entry.name);
    putOctal(header, 100, 8, entry.mode);
    putOctal(header, 108, 8, 0); // uid
    putOctal(header, 116, 8, 0); // gid
    putOctal(header, 124, 12, entry.data.length);
    putOctal(header, 136, 12, Math.floor(mtime));
    header.fill(0x20, 148, 156); // checksum field counts as spaces while summing
    header[156] = 0x30; // typeflag '0': regular file
    putString(header, 257, 6, "ustar\0");
    putString(header, 263, 2, "00");
    putString(header, 265, 32, "root");
    putString(header, 297, 32, "root");
    const checksum = header.reduce((sum, byte) => sum + byte, 0);
    putString(header, 148, 8, `${checksum.toString(8).padStart(6, "0")}\0 `);
    out.set(entry.data, offset + BLOCK);
    offset += BLOCK + Math.ceil(entry.data.length / BLOCK) * BLOCK;
  }
  return out; // the two trailing zero blocks are already zero
}

/** Writes `archive` (.tar.gz) holding `file` under the name `name`, mode 0755. */
export async function writeTarGz(archive: string, file: string, name: string, mtime: number): Promise<void> {
  const data = await Bun.file(file).bytes();
  const gz = Bun.gzipSync(tar([{ name, data, mode: 0o755 }], mtime), { level: 9 });
  await Bun.write(archive, gz);
}

function dosDateTime(mtime: number): { time: number; date: number } {
  const d = new Date(Math.max(mtime, 315532800) * 1000); // zip times start in 1980 (UTC here)
  return {
    time: (d.getUTCHours() << 11) | (d.getUTCMinutes() << 5) | (d.getUTCSeconds() >> 1),
    date: ((d.getUTCFullYear() - 1980) << 9) | ((d.getUTCMonth() + 1) << 5) | d.getUTCDate(),
  };
}

/**
 * A zip archive of regular files (deflated, Unix mode bits kept), time `mtime` (s, UTC).
 * Plain zip, not zip64: each file and the whole archive must stay under 4 GiB.
 */
export function zip(entries: ArchiveEntry[], mtime: number): Uint8Array<ArrayBuffer> {
  const { time, date } = dosDateTime(mtime);
  const parts: Uint8Array[] = [];
  const central: Uint8Array[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = new TextEncoder().encode(entry.name);
    const data = Bun.deflateSync(entry.data, { level: 9 });
    const crc = Bun.hash.crc32(entry.data);
    if (entry.data.length >= 2 ** 32 || data.length >= 2 ** 32) throw new Error(`${entry.name} is too big for zip`);
    const local = new DataView(new ArrayBuffer(30));
    local.setUint32(0, 0x04034b50, true);
    local.setUint16(4, 20, true); // version needed: 2.0 (deflate)
    local.setUint16(6, 0, true); // flags
    local.setUint16(8, 8, true); // method: deflate
    local.setUint16(10, time, true);
    local.setUint16(12, date, true);
    local.setUint32(14, crc, true);
    local.setUint32(18, data.length, true);
    local.setUint32(22, entry.data.length, true);
    local.setUint16(26, name.length, true);
    local.setUint16(28, 0, true); // extra field length
    const header = new DataView(new ArrayBuffer(46));
    header.setUint32(0, 0x02014b50, true);
    header.setUint16(4, (3 << 8) | 20, true); // made by: Unix, 2.0 — so the mode bits below count
    header.setUint16(6, 20, true);
    header.setUint16(8, 0, true);
    header.setUint16(10, 8, true);
    header.setUint16(12, time, true);
    header.setUint16(14, date, true);
    header.setUint32(16, crc, true);
    header.setUint32(20, data.length, true);
    header.setUint32(24, entry.data.length, true);
    header.setUint16(28, name.length, true);
    // extra length, comment length, disk number, internal attributes: 0
    header.setUint32(38, ((0o100000 | entry.mode) << 16) >>> 0, true); // external: regular file + mode
    header.setUint32(42, offset, true);
    parts.push(new Uint8Array(local.buffer), name, data);
    central.push(new Uint8Array(header.buffer), name);
    offset += 30 + name.length + data.length;
  }
  const centralSize = central.reduce((sum, part) => sum + part.length, 0);
  if (offset + centralSize >= 2 ** 32) throw new Error("archive is too big for zip");
  const end = new DataView(new ArrayBuffer(22));
  end.setUint32(0, 0x06054b50, true);
  end.setUint16(8, entries.length, true);
  end.setUint16(10, entries.length, true);
  end.setUint32(12, centralSize, true);
  end.setUint32(16, offset, true);
  const all = [...parts, ...central, new Uint8Array(end.buffer)];
  const out = new Uint8Array(all.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of all) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** Writes `archive` (.zip) holding `file` under the name `name`, mode 0755. */
export async function writeZip(archive: string, file: string, name: string, mtime: number): Promise<void> {
  const data = await Bun.file(file).bytes();
  await Bun.write(archive, zip([{ name, data, mode: 0o755 }], mtime));
}

export async function sha256File(path: string): Promise<string> {
  const hasher = new Bun.CryptoHasher("sha256");
  for await (const chunk of Bun.file(path).stream()) hasher.update(chunk);
  return hasher.digest("hex");
}

/** The `sha256sum` line for a file: `<hex>  <base name>`. */
export function sumLine(hex: string, path: string): string {
  return `${hex}  ${basename(path)}\n`;
}

/** Writes `<archive>.sha256` and returns its line for SHA256SUMS. */
export async function writeChecksum(archive: string): Promise<string> {
  const line = sumLine(await sha256File(archive), archive);
  writeFileSync(`${archive}.sha256`, line);
  return line;
}

/**
 * The time stamped into archives: SOURCE_DATE_EPOCH when set (reproducible builds), else the
 * last commit's time, else now.
 */
export function archiveTime(root: string): number {
  const fromEnv = Number(process.env.SOURCE_DATE_EPOCH);
  if (Number.isInteger(fromEnv) && fromEnv > 0) return fromEnv;
  const git = Bun.which("git");
  if (git) {
    const result = Bun.spawnSync([git, "log", "-1", "--format=%ct"], { cwd: root, stderr: "ignore" });
    const fromGit = Number(result.stdout.toString().trim());
    if (result.exitCode === 0 && Number.isInteger(fromGit) && fromGit > 0) return fromGit;
  }
  return Math.floor(Date.now() / 1000);
}
