import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { linkSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { writeHeld } from "../../../src/sandbox/gitGuard/writeHolds.ts";
import { makeTempDir } from "../../support/tempDir.ts";

/** A python process that opens `path` as `mode` (and maps it shared, read-only or writable, when `map`), then waits. */
async function holder(path: string, mode: string, map: "read" | "write" | undefined, closeAfterMap = false) {
  const script = [
    "import mmap, sys, time",
    `f = open(${JSON.stringify(path)}, ${JSON.stringify(mode)})`,
    map ? `m = mmap.mmap(f.fileno(), 4, access=mmap.ACCESS_${map.toUpperCase()})` : "",
    closeAfterMap ? "f.close()" : "",
    "print('READY', flush=True)",
    "time.sleep(30)",
  ].join("\n");
  const child = Bun.spawn(["python3", "-c", script], { stdout: "pipe", stderr: "inherit" });
  children.push(child);
  const reader = child.stdout.getReader();
  const { value } = await reader.read();
  expect(new TextDecoder().decode(value).trim()).toBe("READY");
  return child.pid;
}

const children: Array<ReturnType<typeof Bun.spawn>> = [];
let dir = "";

beforeAll(() => {
  dir = makeTempDir("garuda-write-holds-");
});
afterAll(() => rm(dir, { recursive: true, force: true }));
afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
});

describe.if(process.platform === "linux")("writeHeld", () => {
  test("a shared mapping counts after its file is closed; a hard link is the same file", async () => {
    const config = join(dir, "config-mapped");
    writeFileSync(config, "harmless\n");
    linkSync(config, join(dir, "elsewhere"));
    const pid = await holder(join(dir, "elsewhere"), "r+b", "write", true);
    expect([...writeHeld([pid], [config, join(dir, "absent")])]).toEqual([[config, "mapped"]]);
  });

  test("a file open for writing counts as open; one open for reading and mapped read-only does not", async () => {
    const written = join(dir, "config-written");
    const read = join(dir, "config-read");
    writeFileSync(written, "harmless\n");
    writeFileSync(read, "harmless\n");
    const writer = await holder(written, "r+b", undefined);
    const reader = await holder(read, "rb", "read");
    expect([...writeHeld([writer, reader], [written, read])]).toEqual([[written, "open"]]);
  });

  test("processes that hold nothing: none", async () => {
    const file = join(dir, "config-free");
    writeFileSync(file, "harmless\n");
    expect(writeHeld([process.pid], [file]).size).toBe(0);
  });
});
