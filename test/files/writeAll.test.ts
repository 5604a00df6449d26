import { expect, test } from "bun:test";
import { closeSync, openSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { writeAll } from "../../src/files/writeAll.ts";
import { tempDir } from "../support/tempDir.ts";

test("writeAll writes a string as UTF-8 and bytes as they are, in order, all of them", () => {
  using dir = tempDir();
  const file = join(dir.path, "out");
  const big = new Uint8Array(8 * 1024 * 1024).fill(0x61);
  const fd = openSync(file, "w");
  try {
    writeAll(fd, "héllo ");
    writeAll(fd, big);
    writeAll(fd, "");
  } finally {
    closeSync(fd);
  }
  const back = readFileSync(file);
  expect(back.length).toBe(Buffer.byteLength("héllo ") + big.length);
  expect(back.subarray(0, 7).toString()).toBe("héllo ");
  expect(back.subarray(7).every((b) => b === 0x61)).toBe(true);
});
