import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { inflateRawSync } from "node:zlib";
import { sumLine, writeChecksum, writeTarGz, writeZip } from "../../scripts/archive.ts";
import { tempDir } from "../support/tempDir.ts";

const MTIME = 1_764_460_800; // 2025-11-30T00:00:00Z
const SCRIPT = "#!/bin/sh\necho hi\n".repeat(100); // over one 512-byte tar block

function executable(dir: string): string {
  const path = join(dir, "input");
  writeFileSync(path, SCRIPT, { mode: 0o644 });
  return path;
}

function sh(cmd: string[], cwd: string): string {
  const result = Bun.spawnSync(cmd, { cwd, stdout: "pipe", stderr: "pipe" });
  if (result.exitCode !== 0) throw new Error(`${cmd.join(" ")}: ${result.stderr.toString()}`);
  return result.stdout.toString();
}

describe("writeTarGz", () => {
  test("holds one executable file that the system tar extracts byte for byte", async () => {
    using dir = tempDir();
    const archive = join(dir.path, "a.tar.gz");
    await writeTarGz(archive, executable(dir.path), "garuda", MTIME);
    const out = join(dir.path, "out");
    mkdirSync(out);
    expect(sh(["tar", "-tzf", archive], dir.path)).toBe("garuda\n");
    sh(["tar", "-xzf", archive, "-C", out], dir.path);
    const extracted = join(out, "garuda");
    expect(readFileSync(extracted, "utf8")).toBe(SCRIPT);
    expect(statSync(extracted).mode & 0o777).toBe(0o755);
    expect(Math.round(statSync(extracted).mtimeMs / 1000)).toBe(MTIME);
  });

  test("is byte-identical for identical input", async () => {
    using dir = tempDir();
    const input = executable(dir.path);
    await writeTarGz(join(dir.path, "1.tar.gz"), input, "garuda", MTIME);
    await writeTarGz(join(dir.path, "2.tar.gz"), input, "garuda", MTIME);
    expect(readFileSync(join(dir.path, "1.tar.gz")).equals(readFileSync(join(dir.path, "2.tar.gz")))).toBe(true);
  });
});

describe("writeZip", () => {
  test("holds one deflated file with Unix mode 0755 and a correct CRC", async () => {
    using dir = tempDir();
    const archive = join(dir.path, "a.zip");
    await writeZip(archive, executable(dir.path), "garuda.exe", MTIME);
    const bytes = readFileSync(archive);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);

    const end = bytes.length - 22;
    expect(view.getUint32(end, true)).toBe(0x06054b50);
    expect(view.getUint16(end + 10, true)).toBe(1); // entries
    const central = view.getUint32(end + 16, true);
    expect(view.getUint32(central, true)).toBe(0x02014b50);
    expect(view.getUint16(central + 4, true) >> 8).toBe(3); // made by Unix
    expect(view.getUint32(central + 38, true) >>> 16).toBe(0o100755);
    const nameLength = view.getUint16(central + 28, true);
    expect(bytes.subarray(central + 46, central + 46 + nameLength).toString()).toBe("garuda.exe");

    const local = view.getUint32(central + 42, true);
    expect(view.getUint32(local, true)).toBe(0x04034b50);
    expect(view.getUint16(local + 8, true)).toBe(8); // deflate
    const size = view.getUint32(local + 18, true);
    const start = local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
    const data = inflateRawSync(bytes.subarray(start, start + size));
    expect(data.toString()).toBe(SCRIPT);
    expect(view.getUint32(local + 14, true)).toBe(Bun.hash.crc32(data));
    // DOS date of 2025-11-30 00:00 UTC
    expect(view.getUint16(local + 12, true)).toBe(((2025 - 1980) << 9) | (11 << 5) | 30);
  });
});

describe("checksums", () => {
  test("a .sha256 file is the sha256sum line of the archive", async () => {
    using dir = tempDir();
    const archive = join(dir.path, "garuda-1.0.0-linux-x64.tar.gz");
    writeFileSync(archive, "not really an archive");
    const line = await writeChecksum(archive);
    const hex = createHash("sha256").update("not really an archive").digest("hex");
    expect(line).toBe(`${hex}  garuda-1.0.0-linux-x64.tar.gz\n`);
    expect(readFileSync(`${archive}.sha256`, "utf8")).toBe(line);
    expect(sumLine(hex, "/some/dir/x.zip")).toBe(`${hex}  x.zip\n`);
  });
});
