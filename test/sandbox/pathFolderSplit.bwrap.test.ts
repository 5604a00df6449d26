// PATH folders inside package caches (src/sandbox/pathFolderSplit.ts), in the real bubblewrap
// sandbox: pnpm's home, ~/.local/share/pnpm, is a cache every session may write and, after
// `pnpm setup`, first on the host's PATH. A sandboxed command must not plant a program at its top
// (the user's next `git` would run it on the host), while pnpm's store inside it stays writable.
// Nor change what a program at a PATH folder's top runs: pnpm's shims run its global packages
// (~/.local/share/pnpm/global/…), and uv's tools on ~/.local/bin link into ~/.local/share/uv.
// Negative control: the same PATH without pnpm's home lets the command write there, as a cache.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
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
const tscBin = join(pnpmHome, "global", "5", "node_modules", "typescript", "bin");
const uvTool = join(home, ".local", "share", "uv", "tools", "ruff", "bin");
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
      // As `pnpm add -g typescript` leaves it (the shim, shortened: pnpm's runs node on the file).
      mkdirSync(tscBin, { recursive: true });
      writeFileSync(join(tscBin, "tsc"), "echo 'Version 5.4.5'\n");
      writeFileSync(
        join(pnpmHome, "tsc"),
        '#!/bin/sh\nbasedir=$(dirname "$0")\nexec sh "$basedir/global/5/node_modules/typescript/bin/tsc" "$@"\n',
      );
      chmodSync(join(pnpmHome, "tsc"), 0o755);
      // As `uv tool install ruff` leaves it.
      mkdirSync(uvTool, { recursive: true });
      writeFileSync(join(uvTool, "ruff"), "#!/bin/sh\necho 'ruff 0.4.4'\n");
      chmodSync(join(uvTool, "ruff"), 0o755);
      symlinkSync(join(uvTool, "ruff"), join(localBin, "ruff"));
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

    test(
      "PNPM_HOME on PATH: no program can be planted at its top, nor a folder in place " +
        "of one; its store stays writable",
      async () => {
        expect((await run(plant(pnpmHome), userPath)).exitCode).not.toBe(0);
        expect(existsSync(join(pnpmHome, "git"))).toBe(false);
        expect((await run(`mkdir '${pnpmHome}/new'`, userPath)).exitCode).not.toBe(0);
        const store = await run(`echo blob > '${pnpmHome}/store/blob' && cat '${pnpmHome}/store/blob'`, userPath);
        expect(store.output).toContain("blob");
        expect(existsSync(join(pnpmHome, "store", "blob"))).toBe(true);
      },
    );

    test("what the user's `tsc` (a pnpm shim on PATH) runs cannot be changed, on PATH or off", async () => {
      const tsc = join(tscBin, "tsc");
      for (const path of [userPath, [localBin, "/usr/bin", "/bin"]]) {
        expect((await run(`echo 'echo PLANTED' > '${tsc}'`, path)).exitCode).not.toBe(0);
        expect((await run(`mkdir '${pnpmHome}/global/new'`, path)).exitCode).not.toBe(0);
      }
      const host = Bun.spawnSync([join(pnpmHome, "tsc"), "--version"], { env: { PATH: "/usr/bin:/bin" } });
      expect(host.stdout.toString().trim()).toBe("Version 5.4.5");
    });

    test("what the user's `ruff` (~/.local/bin, a uv tool) runs cannot be changed", async () => {
      const planted = await run(`printf '#!/bin/sh\\necho PLANTED\\n' > '${join(uvTool, "ruff")}'`, userPath);
      expect(planted.exitCode).not.toBe(0);
      const host = Bun.spawnSync([join(localBin, "ruff"), "--version"], { env: { PATH: "/usr/bin:/bin" } });
      expect(host.stdout.toString().trim()).toBe("ruff 0.4.4");
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
