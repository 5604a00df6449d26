// A FIFO (no writer) where a settings file, an instruction file or a `.git` file belongs: every
// reader refuses it at once instead of waiting for a writer, which used to freeze session/new and
// with it every session of the process. Negative control for each: a regular file is read.
import { describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { chmodSync, chownSync, mkdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "../../src/errors/configError.ts";
import { readCredentials } from "../../src/config/credentials.ts";
import { garudaPaths } from "../../src/config/paths.ts";
import { loadProjectSettings } from "../../src/config/projectSettings.ts";
import { readRegularFile } from "../../src/files/regularFile.ts";
import { readInstructions } from "../../src/runtime/instructions.ts";
import { realFs } from "../../src/sandbox/fsView.ts";
import { tempDir } from "../support/tempDir.ts";

const fifo = (path: string) => execFileSync("mkfifo", [path]);

describe("readers of small files never wait on a pipe", () => {
  test("readRegularFile: a FIFO, a folder, a link with noFollow, a big file, a missing one", () => {
    using dir = tempDir();
    fifo(join(dir.path, "pipe"));
    writeFileSync(join(dir.path, "file"), "text");
    writeFileSync(join(dir.path, "big"), "x".repeat(100));
    execFileSync("ln", ["-s", "file", join(dir.path, "link")]);
    expect(readRegularFile(join(dir.path, "pipe"), { maxBytes: 10 })).toEqual({ problem: "not_regular" });
    expect(readRegularFile(dir.path, { maxBytes: 10 })).toEqual({ problem: "folder" });
    expect(readRegularFile(join(dir.path, "link"), { maxBytes: 10, noFollow: true })).toEqual({ problem: "link" });
    expect(readRegularFile(join(dir.path, "big"), { maxBytes: 10 })).toEqual({ problem: "too_big", size: 100 });
    expect(readRegularFile(join(dir.path, "none"), { maxBytes: 10 })).toEqual({ problem: "missing" });
    expect(readRegularFile(join(dir.path, "link"), { maxBytes: 10 })).toEqual({ bytes: Buffer.from("text") });
  });

  test(
    "readRegularFile with own: another user's file and a mode bit it forbids are " +
      "refused (negative control: a 0600 file of the user's is read)",
    () => {
      using dir = tempDir();
      const file = join(dir.path, "keys");
      writeFileSync(file, "k", { mode: 0o600 });
      expect(readRegularFile(file, { maxBytes: 10, own: { deniedMode: 0o077 } })).toEqual({ bytes: Buffer.from("k") });
      chmodSync(file, 0o640);
      expect(readRegularFile(file, { maxBytes: 10, own: { deniedMode: 0o077 } })).toEqual({
        problem: "open_mode",
        mode: statSync(file).mode,
      });
      expect(readRegularFile(file, { maxBytes: 10, own: { deniedMode: 0o022 } })).toEqual({ bytes: Buffer.from("k") });
      if (process.getuid?.() === 0) {
        chmodSync(file, 0o600);
        chownSync(file, 65534, 65534);
        expect(readRegularFile(file, { maxBytes: 10, own: { deniedMode: 0o077 } })).toEqual({ problem: "not_own" });
        expect(readRegularFile(file, { maxBytes: 10 })).toEqual({ bytes: Buffer.from("k") });
      }
    },
  );

  test(
    "~/.garuda/credentials as a FIFO is a clear error, not a read that waits " + "(negative control: a file is read)",
    () => {
      using dir = tempDir();
      const credentials = join(dir.path, "credentials");
      fifo(credentials);
      expect(() => readCredentials(credentials)).toThrow(`${credentials}: is not a regular file`);
      rmSync(credentials);
      writeFileSync(credentials, '{"ANTHROPIC_API_KEY": "sk-test"}', { mode: 0o600 });
      expect(readCredentials(credentials)).toEqual({ ANTHROPIC_API_KEY: "sk-test" });
    },
  );

  test(".garuda/settings.json as a FIFO is a clear error (negative control: a file is read)", () => {
    using root = tempDir();
    using home = tempDir();
    mkdirSync(join(root.path, ".garuda"));
    fifo(join(root.path, ".garuda/settings.json"));
    let error: unknown;
    try {
      loadProjectSettings({ root: root.path, paths: garudaPaths(home.path) });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toContain("is not a regular file (a pipe, socket or device)");
    using other = tempDir();
    mkdirSync(join(other.path, ".garuda"));
    writeFileSync(join(other.path, ".garuda/settings.json"), "{}");
    expect(loadProjectSettings({ root: other.path, paths: garudaPaths(home.path) }).settings).toBeDefined();
  });

  test("AGENTS.md as a FIFO is left out with a note (negative control: CLAUDE.md beside it is read)", () => {
    using root = tempDir();
    fifo(join(root.path, "AGENTS.md"));
    writeFileSync(join(root.path, "CLAUDE.md"), "Use tabs.\n");
    const read = readInstructions(root.path);
    expect(read.notes).toContain("AGENTS.md was not read: it is not a regular file (a pipe, socket or device).");
    expect(read.files.map((file) => file.text)).toEqual(["Use tabs."]);
  });

  test("a `.git` FIFO gives the sandbox no text to follow (negative control: a `.git` file is read)", () => {
    using root = tempDir();
    fifo(join(root.path, ".git"));
    expect(realFs.readText(join(root.path, ".git"))).toBeUndefined();
    using other = tempDir();
    writeFileSync(join(other.path, ".git"), "gitdir: ../x\n");
    expect(realFs.readText(join(other.path, ".git"))).toBe("gitdir: ../x\n");
  });
});
