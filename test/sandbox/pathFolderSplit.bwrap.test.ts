// PATH folders inside package caches (src/sandbox/pathFolderSplit.ts), in the real bubblewrap
// sandbox: pnpm's home, ~/.local/share/pnpm, is a cache every session may write and, after
// `pnpm setup`, first on the host's PATH. A sandboxed command must not plant a program at its top
// (the user's next `git` would run it on the host), while pnpm's store inside it stays writable.
// Negative control: the same PATH without pnpm's home lets the command write there, as a cache.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { createExecutor } from "../../src/sandbox/executor.ts";
import type { ProcessExecutor } from "../../src/sandbox/types.ts";
import { describeSandbox, testExecutorOptions } from "../support/sandboxSupport.ts";
import { tempDir } from "../support/tempDir.ts";

const scratch = tempDir("garuda-pathdirs-", { real: true });
const home = join(scratch.path, "home");
const root = join(scratch.path, "project");
const pnpmHome = join(home, ".local", "share", "pnpm");
const localBin = join(home, ".local", "bin");
let executor: ProcessExecutor;

const plant = (dir: string) => `printf '#!/bin/sh\\necho pwned\\n' > '${dir}/git' && chmod +x '${dir}/git'`;
const run = (command: string, pathFolders: string[]) =>
  executor.run({ command, cwd: root, sandbox: { ...executor.spec(), pathFolders } });
/** The PATH of a user who ran `pnpm setup`: PNPM_HOME first. */
const userPath = [pnpmHome, localBin, "/usr/local/bin", "/usr/bin", "/bin"];

describeSandbox(
  "PATH folders inside package caches",
  () => {
    beforeAll(async () => {
      mkdirSync(join(pnpmHome, "store"), { recursive: true });
      mkdirSync(localBin, { recursive: true });
      mkdirSync(root, { recursive: true });
      executor = await createExecutor({ ...testExecutorOptions(root, home), gitGuard: false });
    });
    afterAll(async () => {
      await executor?.shutdown();
      scratch[Symbol.dispose]();
    });

    test("~/.local/bin (a PATH folder that is no cache) stays read-only", async () => {
      expect((await run(plant(localBin), userPath)).exitCode).not.toBe(0);
      expect(existsSync(join(localBin, "git"))).toBe(false);
    });

    test("PNPM_HOME on PATH: no program can be planted at its top, nor a folder in place of one; its store stays writable", async () => {
      expect((await run(plant(pnpmHome), userPath)).exitCode).not.toBe(0);
      expect(existsSync(join(pnpmHome, "git"))).toBe(false);
      expect((await run(`mkdir '${pnpmHome}/new'`, userPath)).exitCode).not.toBe(0);
      const store = await run(`echo blob > '${pnpmHome}/store/blob' && cat '${pnpmHome}/store/blob'`, userPath);
      expect(store.output).toContain("blob");
      expect(existsSync(join(pnpmHome, "store", "blob"))).toBe(true);
    });

    test("negative control: off PATH, pnpm's home is a cache like any other, writable at its top", async () => {
      const written = await run(plant(pnpmHome), [localBin, "/usr/bin", "/bin"]);
      expect(written.exitCode).toBe(0);
      expect(existsSync(join(pnpmHome, "git"))).toBe(true);
      rmSync(join(pnpmHome, "git"));
    });
  },
  "bwrap",
);
