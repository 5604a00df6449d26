import { describe, expect, test } from "bun:test";
import { readdirSync, readlinkSync, writeSync } from "node:fs";
import { closeFile, readAsWritten, unnamedFile } from "../../../src/sandbox/ripgrep/outputFile.ts";
import { createRipgrepRunner } from "../../../src/sandbox/ripgrep/runner.ts";
import { ripgrepHere, testRipgrep, testRipgrepProgram } from "../../support/ripgrep.ts";
import { tempRoot, writeFiles } from "../../support/toolFixtures.ts";
import { makeTempDir } from "../../support/tempDir.ts";

describe.skipIf(process.platform !== "linux")("rg's output file", () => {
  test("has no name: nothing in its folder, nothing to open or put in its place (negative control)", () => {
    const dir = makeTempDir("garuda-rg-out-");
    const fd = unnamedFile(dir);
    expect(fd).toBeDefined();
    try {
      // A file made with a name, even one removed at once, is listed here until it is removed.
      expect(readdirSync(dir)).toEqual([]);
      expect(readlinkSync(`/proc/self/fd/${fd}`)).toEndWith("(deleted)");
    } finally {
      closeFile(fd);
    }
  });

  test("is read as it is written, to the last byte once the writer is done", async () => {
    const fd = unnamedFile(makeTempDir("garuda-rg-out-")) as number;
    let finish = () => {};
    const exited = new Promise<void>((resolve) => {
      finish = resolve;
    });
    const taken: string[] = [];
    const reading = readAsWritten(fd, exited, (chunk) => {
      taken.push(Buffer.from(chunk).toString());
      return true;
    });
    writeSync(fd, "first\n");
    await Bun.sleep(30);
    // Taken while the writer still runs.
    expect(taken.join("")).toBe("first\n");
    writeSync(fd, "second\n");
    finish();
    await reading;
    expect(taken.join("")).toBe("first\nsecond\n");
    closeFile(fd);
  });
});

describe.skipIf(!ripgrepHere)("the runner's output", () => {
  test("thousands of rg's small writes arrive whole and in order, as rg prints them", async () => {
    using root = tempRoot();
    const files: Record<string, string> = {};
    for (let i = 0; i < 3000; i++) files[`d${i % 30}/f${i}.txt`] = "needle\n".repeat((i % 5) + 1);
    writeFiles(root.path, files);
    const args = ["--count", "--sort", "path", "needle", "."];
    const whole = await testRipgrep(root.path).run({ cwd: root.path, args, signal: new AbortController().signal });
    const pieces: Buffer[] = [];
    const streamed = await testRipgrep(root.path).run({
      cwd: root.path,
      args,
      signal: new AbortController().signal,
      onStdout: (chunk) => pieces.push(Buffer.from(chunk)),
    });
    expect(whole.kind === "done" && whole.stdout.toString().split("\n").length).toBe(3001);
    expect(streamed.kind).toBe("done");
    expect(Buffer.concat(pieces).toString()).toBe(whole.kind === "done" ? whole.stdout.toString() : "");
  });

  test("past the most it may print, rg is stopped and the search left to the tools' own", async () => {
    using root = tempRoot();
    writeFiles(root.path, { "big.txt": "needle\n".repeat(200_000) });
    const runner = createRipgrepRunner({
      program: testRipgrepProgram(),
      bwrap: Bun.which("bwrap") as string,
      disableUserns: true,
      root: root.path,
      denyRead: () => [],
      maxOutputBytes: 100_000,
    });
    let taken = 0;
    const outcome = await runner.run({
      cwd: root.path,
      args: ["needle", "."],
      signal: new AbortController().signal,
      onStdout: (chunk) => {
        taken += chunk.length;
      },
    });
    expect(outcome.kind === "unavailable" && outcome.why).toBe("its output passed 100000 bytes");
    // Nothing past the limit is handed on.
    expect(taken).toBeLessThanOrEqual(100_000);
  });
});
