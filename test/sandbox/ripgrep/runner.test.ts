import { describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { embeddedRipgrep, gzippedProgram, ripgrepFromFile } from "../../../src/sandbox/ripgrep/program.ts";
import { createRipgrepRunner, ripgrepSandboxArgs } from "../../../src/sandbox/ripgrep/runner.ts";
import { ripgrepHere, testRipgrep } from "../../support/ripgrep.ts";
import { tempRoot, writeFiles } from "../../support/toolFixtures.ts";
import { makeTempDir } from "../../support/tempDir.ts";

const never = new AbortController().signal;

describe("the embedded program", () => {
  test("is found by its name among the binary's embedded files, and unzipped once", async () => {
    const blob = (name: string, text: string) => Object.assign(new Blob([gzipSync(Buffer.from(text))]), { name });
    expect(embeddedRipgrep([blob("runtime-1234abcd.wasm.gz", "x")])).toBeUndefined();
    const found = embeddedRipgrep([blob("c-12345678.wasm.gz", "x"), blob("rg-linux-x64-1785k08a.gz", "RG")]);
    expect(found?.name).toBe("rg-linux-x64-1785k08a.gz");
    expect(Buffer.from((await found?.bytes()) ?? []).toString()).toBe("RG");
    let reads = 0;
    const program = gzippedProgram("p", async () => {
      reads++;
      return gzipSync(Buffer.from("once")).buffer as ArrayBuffer;
    });
    await program.bytes();
    await program.bytes();
    expect(reads).toBe(1);
  });
});

describe("the sandbox rg runs in", () => {
  test("holds the system's libraries and the project, read-only, and hides what commands may not read", () => {
    const args = ripgrepSandboxArgs(
      { bwrap: "bwrap", disableUserns: true, root: "/tmp", denyRead: () => ["/tmp", "/etc/shadow"] },
      { cwd: "/tmp", args: ["-l", "x"], signal: never },
    );
    expect(args).toContain("--unshare-all");
    expect(args).toContain("--clearenv");
    expect(args.join(" ")).toContain("--ro-bind /tmp /tmp --tmpfs /tmp --remount-ro /tmp");
    // Outside the project: not mounted at all, so nothing to hide.
    expect(args).not.toContain("/etc/shadow");
    expect(args.join(" ")).toContain("--perms 0555 --ro-bind-data 0 /run/garuda-rg");
    expect(args.slice(-3)).toEqual(["/run/garuda-rg", "-l", "x"]);
    expect(args.filter((a) => a === "--bind")).toEqual([]);
  });
});

describe.skipIf(!ripgrepHere)("the runner", () => {
  test("a program that cannot run here is reported once and not tried again", async () => {
    using root = tempRoot();
    const gz = join(makeTempDir("garuda-rg-bad-"), "rg-linux-x64.gz");
    // An ELF header with nothing behind it: the kernel refuses to run it.
    writeFileSync(gz, gzipSync(Buffer.from("\x7fELF\x02\x01\x01garbage")));
    let reads = 0;
    const program = ripgrepFromFile(gz);
    const runner = createRipgrepRunner({
      program: { name: program.name, bytes: () => (reads++, program.bytes()) },
      bwrap: Bun.which("bwrap") as string,
      disableUserns: true,
      root: root.path,
      denyRead: () => [],
    });
    const first = await runner.run({ cwd: root.path, args: ["x", "."], signal: never });
    expect(first.kind).toBe("unavailable");
    expect((await runner.run({ cwd: root.path, args: ["x", "."], signal: never })).kind).toBe("unavailable");
    expect(reads).toBe(1);
  });

  test("a folder that is not there is this search's failure only", async () => {
    using root = tempRoot();
    writeFiles(root.path, { "a.txt": "x\n" });
    const runner = testRipgrep(root.path);
    expect((await runner.run({ cwd: join(root.path, "gone"), args: ["x", "."], signal: never })).kind).toBe(
      "unavailable",
    );
    const again = await runner.run({ cwd: root.path, args: ["-l", "x", "."], signal: never });
    expect(again.kind === "done" && again.stdout.toString()).toBe("./a.txt\n");
  });

  test("a pipe in a file's place (rg waits for a writer) stops the search as stuck (negative control)", async () => {
    using root = tempRoot();
    writeFiles(root.path, { "a.txt": "x\n" });
    // rg opens the files it listed by name; a command can swap one for a pipe in between. Named
    // here, rg opens it at once, and waits as it would then.
    execFileSync("mkfifo", [join(root.path, "pipe.txt")]);
    const runner = testRipgrep(root.path, [], { stallMs: 300 });
    const hung = Bun.sleep(3000).then(() => "still waiting after 3 s" as const);
    const outcome = await Promise.race([runner.run({ cwd: root.path, args: ["x", "pipe.txt"], signal: never }), hung]);
    expect(outcome === "still waiting after 3 s" ? outcome : outcome.kind).toBe("unavailable");
    // Not taken as rg unable to run here: the next search runs.
    const again = await runner.run({ cwd: root.path, args: ["-l", "x", "a.txt"], signal: never });
    expect(again.kind === "done" && again.stdout.toString()).toBe("a.txt\n");
  }, 10_000);

  test("a search that takes long but works is not taken as stuck", async () => {
    using root = tempRoot();
    for (let i = 0; i < 40; i++) writeFiles(root.path, { [`f${i}.txt`]: "needle x\n".repeat(200_000) });
    const outcome = await testRipgrep(root.path, [], { stallMs: 100 }).run({
      cwd: root.path,
      // Slow on purpose (a pattern rg cannot take apart) and silent (every file matches): only its CPU shows it works.
      args: ["--files-without-match", "--", "(n|x)e+d{1,3}l[a-z]*\\s+\\w", "."],
      signal: never,
    });
    expect(outcome.kind === "done" && outcome.stdout.toString()).toBe("");
  });

  test("cancel ends the search", async () => {
    using root = tempRoot();
    writeFiles(root.path, { "a.txt": "x\n" });
    const controller = new AbortController();
    controller.abort();
    expect(
      (await testRipgrep(root.path).run({ cwd: root.path, args: ["x", "."], signal: controller.signal })).kind,
    ).toBe("cancelled");
  });
});

test("a program that will not unzip is unavailable, not an error of the tool call", async () => {
  using root = tempRoot();
  const runner = createRipgrepRunner({
    program: gzippedProgram("broken", async () => new Uint8Array([1, 2, 3]).buffer as ArrayBuffer),
    bwrap: "/nonexistent/bwrap",
    disableUserns: true,
    root: root.path,
    denyRead: () => [],
  });
  expect((await runner.run({ cwd: root.path, args: ["x"], signal: never })).kind).toBe("unavailable");
});

describe.skipIf(!ripgrepHere)("the runner, against a project's names", () => {
  test("a name spelling the loader's message does not turn rg off for the session (negative control)", async () => {
    using root = tempRoot();
    writeFiles(root.path, { "a.txt": "x\n" });
    // rg names a link it cannot open among its errors: `./error while loading shared libraries: No such file …`.
    symlinkSync("/nonexistent", join(root.path, "error while loading shared libraries"));
    const runner = testRipgrep(root.path);
    const args = ["--follow", "-l", "x", "."];
    const first = await runner.run({ cwd: root.path, args, signal: never });
    expect(first.kind === "done" && first.code).toBe(2);
    const again = await runner.run({ cwd: root.path, args, signal: never });
    expect(again.kind).toBe("done");
  });
});
