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
    expect(run.stdout).toContain("Usage: garuda");
    for (const option of ["--model", "--continue", "--resume", "--hide-thinking", "run"])
      expect(run.stdout).toContain(option);
    expect(run.stdout).not.toContain("\u001b[");
  });

  test(
    "every command's --help: left-aligned columns, every option described, nothing " + "past 80 columns in a pipe",
    () => {
      using home = tempDir();
      for (const command of [[], ["run"], ["setup"], ["acp"], ["models"], ["audit"], ["help"], ["version"]]) {
        const help = garuda([...command, "--help"], home.path);
        expect(help.code).toBe(0);
        const lines = help.stdout.split("\n");
        for (const line of lines) {
          expect(line.length).toBeLessThanOrEqual(80);
          expect(line).not.toMatch(/ $/);
        }
        const options = lines.slice(lines.indexOf("Options:") + 1, lines.indexOf("", lines.indexOf("Options:")));
        expect(options.length).toBeGreaterThan(0);
        // A row starts with its flag two blanks in, and says what the flag does.
        for (const row of options.filter((line) => /^ {2}-/.test(line))) expect(row).toMatch(/^ {2}-\S.*\S {2,}\S/);
      }
      expect(garuda(["setup", "--help"], home.path).stdout).toContain(
        "  --no-check           Save the key without checking it (no request is sent)",
      );
    },
  );

  test("bare garuda is the chat: with no model it says to run setup and exits 1", () => {
    using home = tempDir();
    const run = garuda([], home.path);
    expect(run.code).toBe(1);
    expect(run.stdout + run.stderr).toContain("garuda setup");
  });

  test(
    "a word that names no command starts the chat with it; a command's typo is an " + "error that lists the commands",
    () => {
      using home = tempDir();
      // `garuda "task"` is the chat (here: no model, so it says to run setup), not an unknown command.
      const run = garuda(["bogus"], home.path);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain("Garuda has no model.");
      expect(run.stderr).not.toContain("unknown command");
      const typo = garuda(["rn", "x"], home.path);
      expect(typo.code).toBe(2);
      expect(typo.stderr).toContain('unknown command "rn" (did you mean run?)');
      expect(typo.stderr).toContain("The commands are: acp, audit, models, run, setup, help, version");
      // A prompt of several words is no typo.
      expect(garuda(["rn the tests"], home.path).stderr).toContain("Garuda has no model.");
    },
  );

  test("with no model, `garuda models` says so", () => {
    using home = tempDir();
    const run = garuda(["models"], home.path);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("claude-sonnet-5");
    expect(run.stdout).toContain("Garuda has no model. Run `garuda setup`");
  });

  test("--model before or after the command, and the key's source", () => {
    using home = tempDir();
    const before = garuda(["--model", "claude-opus-5", "models"], home.path, {
      ANTHROPIC_API_KEY: "sk-x",
      GARUDA_MODEL: "claude-haiku-4-5",
    });
    expect(before.stdout).toContain(
      "In use: claude-opus-5 (from --model); key ANTHROPIC_API_KEY from the environment.",
    );
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

  test("a bad option value is one usage line naming the allowed values, exit 2: no stack, no colour", () => {
    using home = tempDir();
    for (const [args, value] of [
      [["run", "--format", "xml", "hi"], 'not "xml"'],
      [["run", "--format", "JSON", "hi"], 'not "JSON"'],
      [["run", "hi", "--format"], "needs a value"],
    ] as const) {
      const run = garuda([...args], home.path);
      expect(run.code).toBe(2);
      expect(run.stdout).toBe("");
      expect(run.stderr).toStartWith("garuda run: --format ");
      expect(run.stderr).toContain("text, json");
      expect(run.stderr).toContain(value);
      expect(run.stderr.trim().split("\n")).toHaveLength(1);
      expect(run.stderr).not.toContain("unexpected error");
      expect(run.stderr).not.toContain("\u001b[");
    }
  });

  test("citty's own parse errors are usage errors too (a missing argument)", () => {
    using home = tempDir();
    const run = garuda(["audit"], home.path);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe("garuda audit: Missing required positional argument: ACTION. See `garuda audit --help`.\n");
  });

  test("an unknown or misspelled option is refused for every command, with the nearest option, exit 2", () => {
    using home = tempDir();
    const cases: Array<[string[], string]> = [
      [
        ["run", "--fromat", "json", "--alow", "bash(*)", "hi"],
        "garuda run: unknown option --fromat (did you mean --format?).",
      ],
      [["run", "hi", "--alow", "bash(*)"], "garuda run: unknown option --alow (did you mean --allow?)."],
      [["models", "--bogus"], "garuda models: unknown option --bogus."],
      [["--bogus"], "garuda: unknown option --bogus."],
      [["--fromat", "json"], "garuda: unknown option --fromat."],
      [["acp", "--bogus"], "garuda acp: unknown option --bogus."],
      [["acp", "setup", "--shwo"], "garuda acp: unknown option --shwo (did you mean --show?)."],
      [["setup", "--no-chek"], "garuda setup: unknown option --no-chek (did you mean --no-check?)."],
      [["audit", "verify", "--all"], "garuda audit: unknown option --all."],
    ];
    for (const [args, line] of cases) {
      const run = garuda(args, home.path);
      expect({ args, code: run.code }).toEqual({ args, code: 2 });
      expect(run.stderr).toStartWith(line);
      expect(run.stderr.trim().split("\n")).toHaveLength(1);
    }
  });

  test("the options editors pass still work: `garuda acp setup --show`, --model before the command", () => {
    using home = tempDir();
    const run = garuda(["--model", "claude-opus-5", "acp", "setup", "--show"], home.path, {
      ANTHROPIC_API_KEY: "sk-x",
    });
    expect(run.code).toBe(0);
    expect(run.stdout + run.stderr).toContain("claude-opus-5");
  });

  test("`garuda help [command]` prints the usage and `garuda version` the version, exit 0", () => {
    using home = tempDir();
    const help = garuda(["help"], home.path);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Usage: garuda");
    expect(help.stderr).toBe("");
    const helpRun = garuda(["help", "run"], home.path);
    expect(helpRun.code).toBe(0);
    expect(helpRun.stdout).toContain("Usage: garuda run");
    expect(helpRun.stdout).toContain("143  terminated");
    expect(garuda(["version"], home.path)).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: "" });
    const unknown = garuda(["help", "bogus"], home.path);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command "bogus"');
  });

  test("`garuda models` lines its columns up by measuring them", () => {
    using home = tempDir();
    const rows = garuda(["models"], home.path)
      .stdout.split("\n")
      .filter((line) => line.includes(" per MTok"));
    expect(rows.length).toBeGreaterThan(2);
    expect(new Set(rows.map((row) => row.indexOf("$"))).size).toBe(1);
    expect(new Set(rows.map((row) => row.search(/ {2}Claude/))).size).toBe(1);
  });
});
