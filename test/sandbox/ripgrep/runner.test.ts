import { describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { embeddedRipgrep, gzippedProgram, needsLoader, ripgrepFromFile } from "../../../src/sandbox/ripgrep/program.ts";
import { createRipgrepRunner, ripgrepSandboxArgs } from "../../../src/sandbox/ripgrep/runner.ts";
import { ripgrepHere, testRipgrep, testRipgrepGz } from "../../support/ripgrep.ts";
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

/** An ELF64 little-endian header and one program header of type `type` (3: PT_INTERP, the loader's name). */
function elf(type: number): Uint8Array {
  const bytes = new Uint8Array(64 + 56);
  const view = new DataView(bytes.buffer);
  bytes.set([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1]);
  view.setBigUint64(32, 64n, true);
  view.setUint16(54, 56, true);
  view.setUint16(56, 1, true);
  view.setUint32(64, type, true);
  return bytes;
}

describe("whether the program needs the system's libraries", () => {
  test("an ELF naming a loader does, one without does not, anything else is taken to", () => {
    expect(needsLoader(elf(3))).toBe(true);
    expect(needsLoader(elf(1))).toBe(false);
    expect(needsLoader(new Uint8Array([1, 2, 3]))).toBe(true);
    // A program header table past the end: not read, taken to need them.
    expect(needsLoader(elf(1).slice(0, 100))).toBe(true);
  });

  test.skipIf(!Bun.which("rg"))("this machine's rg (Debian's, dynamically linked) does", async () => {
    expect(needsLoader(await Bun.file(Bun.which("rg") as string).bytes())).toBe(true);
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

  test("holds no system folder for a static program", () => {
    const options = { bwrap: "bwrap", disableUserns: true, root: "/tmp", denyRead: () => [] };
    const request = { cwd: "/tmp", args: ["x"], signal: never };
    const dynamic = ripgrepSandboxArgs(options, request, true);
    const staticOnly = ripgrepSandboxArgs(options, request, false);
    expect(dynamic).toContain("/usr");
    expect(dynamic).toContain("/etc/ld.so.cache");
    for (const path of ["/usr", "/lib", "/lib64", "/etc/ld.so.cache"]) expect(staticOnly).not.toContain(path);
  });
});

// The rg the build embeds on x64 (scripts/ripgrepBuild.ts) is static: it runs, and searches, with nothing of the
// system mounted (the rest of the ripgrep tests run it too, from the build cache).
const testBytes = ripgrepHere ? gunzipSync(await Bun.file(testRipgrepGz).bytes()) : undefined;
describe.skipIf(!testBytes || needsLoader(testBytes))("the runner, with a static rg", () => {
  test("sees only the project: /usr is not there", async () => {
    using root = tempRoot();
    writeFiles(root.path, { "a.txt": "x\n" });
    const runner = testRipgrep(root.path);
    const here = await runner.run({ cwd: root.path, args: ["-l", "x", "."], signal: never });
    expect(here.kind === "done" && here.stdout.toString()).toBe("./a.txt\n");
    const usr = await runner.run({ cwd: root.path, args: ["--files", "/usr/bin"], signal: never });
    expect(usr.kind === "done" && [usr.code, usr.stdout.toString()]).toEqual([2, ""]);
    expect(usr.kind === "done" && usr.stderr).toContain("/usr/bin");
  });

  test.skipIf(!Bun.which("rg"))("a dynamically linked rg cannot start there (negative control)", async () => {
    using root = tempRoot();
    const options = { bwrap: Bun.which("bwrap") as string, disableUserns: true, root: root.path, denyRead: () => [] };
    const args = ripgrepSandboxArgs(options, { cwd: root.path, args: ["--version"], signal: never }, false);
    const run = (program: Uint8Array) =>
      Bun.spawnSync([options.bwrap, ...args], { stdin: program, stdout: "pipe", stderr: "pipe", env: {} });
    expect(run(testBytes as Uint8Array).stdout.toString()).toStartWith("ripgrep ");
    const dynamic = run(await Bun.file(Bun.which("rg") as string).bytes());
    expect(dynamic.exitCode).not.toBe(0);
    expect(dynamic.stderr.toString()).toContain("execvp");
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
