// Giving back the binary's mapped pages (src/cli/process/binaryPages.ts, issue 19.2): which mappings are
// dropped, that a process keeps working after its own are, and the rule that keeps it safe: a
// read-only mapping holding a private page (JavaScriptCore's frozen configuration) is left alone.
// The negative control drops those too, in a child process, and the child crashes.
import { describe, expect, test } from "bun:test";
import { readFileSync, readlinkSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { droppableMappings, releaseBinaryPages } from "../../../src/cli/process/binaryPages.ts";
import { openNative } from "../../../src/sandbox/native.ts";
import { tempDir } from "../../support/tempDir.ts";

const EXE = "/opt/garuda/garuda";
const INODE = 5310360;

function mapping(
  range: string,
  perms: string,
  inode: number,
  path: string,
  rssKb: number,
  anonymousKb: number,
): string {
  return [
    `${range} ${perms} 00000000 fe:00 ${inode}                            ${path}`,
    `Size:              64 kB`,
    `Rss:            ${rssKb} kB`,
    `Pss:            ${rssKb} kB`,
    `Anonymous:        ${anonymousKb} kB`,
    `VmFlags: rd mr mw me`,
  ].join("\n");
}

describe("which mappings are dropped", () => {
  const smaps = [
    mapping("00200000-01a39000", "r--p", INODE, EXE, 11300, 0),
    mapping("01a40000-0684a000", "r-xp", INODE, EXE, 27436, 0),
    mapping("0684a000-0685f000", "rw-p", INODE, EXE, 84, 84),
    mapping("0685f000-06867000", "r--p", INODE, EXE, 32, 12),
    mapping("7f0000000000-7f0000100000", "r-xp", 42, "/usr/lib/x86_64-linux-gnu/libc.so.6", 900, 0),
    mapping("7f1000000000-7f1000100000", "r-xp", 777, EXE, 100, 0),
    mapping("7f2000000000-7f2000100000", "rw-p", 0, "", 4000, 4000),
  ].join("\n");

  test("the binary's read-only private mappings without a private page, with their resident bytes", () => {
    expect(droppableMappings(smaps, EXE, INODE)).toEqual([
      { start: 0x200000n, length: 0x1a39000n - 0x200000n, rssBytes: 11300 * 1024 },
      { start: 0x1a40000n, length: 0x684a000n - 0x1a40000n, rssBytes: 27436 * 1024 },
    ]);
  });

  test(
    "not a read-only mapping that holds a written page, not a writable one, not " +
      "another file or the same path at another inode",
    () => {
      const kept = droppableMappings(smaps, EXE, INODE).map((range) => range.start);
      expect(kept).not.toContain(0x685f000n); // r--p with Anonymous: 12 kB (written, then write-protected)
      expect(kept).not.toContain(0x684a000n); // rw-p
      expect(kept).not.toContain(0x7f0000000000n); // libc
      expect(kept).not.toContain(0x7f1000000000n); // a file at the binary's path that is not the binary
    },
  );

  test("nothing from an smaps without the binary", () => {
    expect(droppableMappings("", EXE, INODE)).toEqual([]);
    expect(droppableMappings(mapping("00200000-01a39000", "r--p", INODE, "/other", 10, 0), EXE, INODE)).toEqual([]);
  });
});

/** Resident bytes of this process's read-only mappings of its own executable. */
function residentOfExe(): number {
  const exe = readlinkSync("/proc/self/exe");
  return droppableMappings(readFileSync("/proc/self/smaps", "utf8"), exe, statSync("/proc/self/exe").ino).reduce(
    (sum, range) => sum + range.rssBytes,
    0,
  );
}

describe.skipIf(process.platform !== "linux")("on this process", () => {
  test("the executable's pages are unmapped, and the process goes on working", async () => {
    const before = residentOfExe();
    expect(before).toBeGreaterThan(1024 * 1024);
    const released = await releaseBinaryPages(openNative());
    const after = residentOfExe();
    expect(released).toBeGreaterThanOrEqual(before / 2);
    expect(after).toBeLessThan(before / 2);
    // Code that ran before and code that had not: both fault back in from the file.
    expect(JSON.parse(JSON.stringify({ list: [1, 2, 3] }))).toEqual({ list: [1, 2, 3] });
    expect(/a+b/u.test("caab")).toBe(true);
    expect(new TextDecoder().decode(new TextEncoder().encode("é"))).toBe("é");
    const child = Bun.spawnSync(["true"]);
    expect(child.exitCode).toBe(0);
    expect(residentOfExe()).toBeGreaterThan(after);
  });

  test("negative control: dropping the written read-only page as well crashes the process", () => {
    using temp = tempDir("garuda-pages-");
    const dir = temp.path;
    // The same call as releaseBinaryPages, in a child, once with the rule and once reading every
    // read-only mapping as free of private pages.
    const script = join(dir, "drop.ts");
    writeFileSync(
      script,
      `import { readFileSync, readlinkSync, statSync } from "node:fs";
import { ` +
        `droppableMappings } from ` +
        `${JSON.stringify(join(import.meta.dir, "../../../src/cli/process/binaryPages.ts"))};
import ` +
        `{ openNative } from ${JSON.stringify(join(import.meta.dir, "../../../src/sandbox/native.ts"))};
const ` +
        `symbols = openNative();
let smaps = readFileSync("/proc/self/smaps", ` +
        `"utf8");
if (process.argv[2] === "ignore-the-rule") smaps = ` +
        `smaps.replace(/^Anonymous:\\s+\\d+ kB$/gm, "Anonymous: 0 kB");
for (const ` +
        `range of droppableMappings(smaps, readlinkSync("/proc/self/exe"), ` +
        `statSync("/proc/self/exe").ino)) symbols.madvise(range.start, range.length, ` +
        `4);
let sum = 0;
for (let i = 0; i < 100000; i++) sum += ` +
        `Math.sqrt(i);
console.log(JSON.stringify({ sum: sum > 0, spawned: ` +
        `Bun.spawnSync(["true"]).exitCode }));
`,
    );
    const run = (mode: string) =>
      Bun.spawnSync([process.execPath, script, mode], {
        stdout: "pipe",
        stderr: "pipe",
        env: { PATH: process.env.PATH },
      });
    const safe = run("keep-the-rule");
    expect(safe.exitCode).toBe(0);
    expect(safe.stdout.toString().trim()).toBe('{"sum":true,"spawned":0}');
    const unsafe = run("ignore-the-rule");
    expect(unsafe.exitCode === 0 && unsafe.stdout.toString().trim() === '{"sum":true,"spawned":0}').toBe(false);
  });
});
