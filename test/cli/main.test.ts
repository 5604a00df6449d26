import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { garudaPaths } from "../../src/config/paths.ts";
import { VERSION } from "../../src/version.ts";
import { tempDir } from "../support/tempDir.ts";

const entry = join(import.meta.dir, "../../src/cli/index.ts");

/** Runs the CLI from source, as a user would run the binary, with a temp HOME. */
function garuda(args: string[], home: string, env: Record<string, string> = {}) {
  const result = Bun.spawnSync([process.execPath, entry, ...args], {
    env: { PATH: process.env.PATH ?? "", HOME: home, ...env },
    cwd: home,
  });
  return { code: result.exitCode, stdout: result.stdout.toString(), stderr: result.stderr.toString() };
}

describe("garuda (from source)", () => {
  test("--version prints the version alone", () => {
    using home = tempDir();
    expect(garuda(["--version"], home.path)).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: "" });
  });

  test("--help prints help on stdout, without colour in a pipe, with the chat's options and the run command", () => {
    using home = tempDir();
    const run = garuda(["--help"], home.path);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("USAGE garuda");
    for (const option of ["--model", "--continue", "--resume", "--hide-thinking", "run"]) expect(run.stdout).toContain(option);
    expect(run.stdout).not.toContain("\u001b[");
  });

  test("bare garuda is the chat: with no model it says to run setup and exits 1", () => {
    using home = tempDir();
    const run = garuda([], home.path);
    expect(run.code).toBe(1);
    expect(run.stdout + run.stderr).toContain("garuda setup");
  });

  test("an unknown command is an error that lists the commands", () => {
    using home = tempDir();
    const run = garuda(["bogus"], home.path);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('unknown command "bogus"');
  });

  test("with no model, `garuda models` says so", () => {
    using home = tempDir();
    const run = garuda(["models"], home.path);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("claude-sonnet-5");
    expect(run.stdout).toContain("Garuda has no model. Run `garuda setup`");
  });

  test("--model before or after the command, and the key's source", () => {
    using home = tempDir();
    const before = garuda(["--model", "claude-opus-5", "models"], home.path, { ANTHROPIC_API_KEY: "sk-x", GARUDA_MODEL: "claude-haiku-4-5" });
    expect(before.stdout).toContain("In use: claude-opus-5 (from --model); key ANTHROPIC_API_KEY from the environment.");
    expect(before.stdout).not.toContain("sk-x");
    const fromEnv = garuda(["models"], home.path, { ANTHROPIC_API_KEY: "sk-x", GARUDA_MODEL: "claude-haiku-4-5" });
    expect(fromEnv.stdout).toContain("In use: claude-haiku-4-5 (from GARUDA_MODEL)");
  });

  test("a malformed models.json is one clear line naming the file, no stack trace", () => {
    using home = tempDir();
    const paths = garudaPaths(home.path);
    mkdirSync(paths.dir, { recursive: true });
    writeFileSync(paths.models, '{"default": "claude-sonnet-5",}');
    const run = garuda(["models"], home.path);
    expect(run.code).toBe(1);
    expect(run.stderr).toStartWith(`garuda: ${paths.models}: is not valid JSON`);
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
    expect(run.stderr).not.toContain("    at ");
  });
});
