// The prompt history on disk: one private file per project, rewritten whole (no temp file left),
// bounded in entries and bytes, two chats of a project both kept, secrets redacted, and a damaged
// or foreign file read as an empty history.
import { describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { ProjectHistory } from "../../src/cli/chat/history.ts";
import {
  appendHistory,
  bounded,
  historyFile,
  MAX_ENTRIES,
  MAX_ENTRY_CHARS,
  MAX_FILE_BYTES,
  readHistory,
} from "../../src/store/promptHistory.ts";
import { tempDir } from "../support/tempDir.ts";

describe("the prompt history file", () => {
  test(
    "one file per project, 0600 in a 0700 folder, no temp file left; the same " + "prompt twice in a row is kept once",
    () => {
      using dir = tempDir();
      const a = join(dir.path, "a");
      const b = join(dir.path, "b");
      mkdirSync(a);
      mkdirSync(b);
      const historyDir = join(dir.path, "history");
      appendHistory(historyFile(historyDir, a), { text: "first" });
      appendHistory(historyFile(historyDir, a), { text: "first" });
      appendHistory(historyFile(historyDir, a), { text: "second", pastes: [["[Pasted 20 lines]", "x\n".repeat(19)]] });
      appendHistory(historyFile(historyDir, b), { text: "other project" });
      expect(readdirSync(historyDir).sort()).toEqual(
        [
          `a-${historyFile(historyDir, a).slice(-13, -5)}.json`,
          `b-${historyFile(historyDir, b).slice(-13, -5)}.json`,
        ].sort(),
      );
      expect(statSync(historyFile(historyDir, a)).mode & 0o777).toBe(0o600);
      expect(statSync(historyDir).mode & 0o777).toBe(0o700);
      expect(readHistory(historyFile(historyDir, a))).toEqual([
        { text: "first" },
        { text: "second", pastes: [["[Pasted 20 lines]", "x\n".repeat(19)]] },
      ]);
      expect(readHistory(historyFile(historyDir, b))).toEqual([{ text: "other project" }]);
    },
  );

  test("two chats of one project: each adds to what the other wrote", () => {
    using dir = tempDir();
    const file = historyFile(join(dir.path, "history"), dir.path);
    const one = new ProjectHistory(dirname(file), dir.path, () => {});
    const two = new ProjectHistory(dirname(file), dir.path, () => {});
    one.add({ text: "from one" });
    two.add({ text: "from two" });
    expect(readHistory(file).map((entry) => entry.text)).toEqual(["from one", "from two"]);
    // Each chat's own list has what it loaded and what it added.
    expect(two.entries.map((entry) => entry.text)).toEqual(["from two"]);
  });

  test("bounded: the newest MAX_ENTRIES, within MAX_FILE_BYTES; a prompt too long is not kept", () => {
    using dir = tempDir();
    const file = historyFile(dir.path, dir.path);
    const earlier = Array.from({ length: MAX_ENTRIES + 19 }, (_, i) => ({ text: `prompt ${i}` }));
    writeFileSync(file, JSON.stringify({ version: 1, entries: earlier }));
    appendHistory(file, { text: `prompt ${MAX_ENTRIES + 19}` });
    const kept = readHistory(file);
    expect(kept).toHaveLength(MAX_ENTRIES);
    expect(kept.at(-1)?.text).toBe(`prompt ${MAX_ENTRIES + 19}`);
    expect(kept[0]?.text).toBe("prompt 20");
    appendHistory(file, { text: "y".repeat(MAX_ENTRY_CHARS + 1) });
    expect(readHistory(file).at(-1)?.text).toBe(`prompt ${MAX_ENTRIES + 19}`);
    const big = Array.from({ length: 40 }, (_, i) => ({ text: `${i}`.padEnd(100_000, "z") }));
    const fits = bounded(big);
    expect(fits.at(-1)?.text.startsWith("39")).toBe(true);
    expect(Buffer.byteLength(JSON.stringify(fits))).toBeLessThanOrEqual(MAX_FILE_BYTES + fits.length);
    expect(fits.length).toBeLessThan(40);
  });

  test("keys and tokens are redacted on disk; this chat still recalls what was typed", () => {
    using dir = tempDir();
    const history = new ProjectHistory(join(dir.path, "history"), dir.path, () => {});
    history.add({ text: "use sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123 for it" });
    expect(readFileSync(historyFile(join(dir.path, "history"), dir.path), "utf8")).not.toContain("abcdefghijklmnop");
    expect(history.entries.at(-1)?.text).toContain("sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123");
  });

  test("a damaged, foreign or missing file is an empty history; a file that cannot be written is said once", () => {
    using dir = tempDir();
    const file = historyFile(dir.path, dir.path);
    expect(readHistory(file)).toEqual([]);
    writeFileSync(file, "{not json");
    expect(readHistory(file)).toEqual([]);
    writeFileSync(file, JSON.stringify({ version: 99, entries: [{ text: "x" }] }));
    expect(readHistory(file)).toEqual([]);
    writeFileSync(
      file,
      JSON.stringify({ version: 1, entries: [{ text: "ok" }, { text: 3 }, { text: "p", pastes: [["a"]] }] }),
    );
    expect(readHistory(file)).toEqual([{ text: "ok" }]);
    // The history folder is a file: nothing can be written there.
    const blocked = join(dir.path, "blocked");
    writeFileSync(blocked, "");
    const said: string[] = [];
    const history = new ProjectHistory(blocked, dir.path, (text) => said.push(text));
    history.add({ text: "one" });
    history.add({ text: "two" });
    expect(said).toHaveLength(1);
    expect(said[0]).toContain("could not be saved");
    expect(history.entries.map((entry) => entry.text)).toEqual(["one", "two"]);
  });
  test(
    "a FIFO or a link to a device at the file's name is an empty history, at once " +
      "(control: a link to a real history file is read)",
    async () => {
      using dir = tempDir();
      Bun.spawnSync(["mkfifo", join(dir.path, "fifo.json")]);
      symlinkSync("/dev/zero", join(dir.path, "zero.json"));
      writeFileSync(join(dir.path, "real.json"), `${JSON.stringify({ version: 1, entries: [{ text: "kept" }] })}\n`);
      symlinkSync(join(dir.path, "real.json"), join(dir.path, "linked.json"));
      const module = join(import.meta.dir, "../../src/store/promptHistory.ts");
      const script =
        `import { readHistory } from ${JSON.stringify(module)}; for (const f of ` +
        `process.argv.slice(1)) console.log(readHistory(f).length);`;
      // In a child: a read that hangs would hang this test runner too.
      const child = Bun.spawn(
        [process.execPath, "-e", script, ...["fifo", "zero", "linked"].map((n) => join(dir.path, `${n}.json`))],
        { stdout: "pipe" },
      );
      const timer = setTimeout(() => child.kill(), 5_000);
      const out = await new Response(child.stdout).text();
      clearTimeout(timer);
      expect(out.trim().split("\n")).toEqual(["0", "0", "1"]);
    },
  );
});
