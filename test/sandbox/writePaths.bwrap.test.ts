// Settings' writePaths in the real OS sandbox (bubblewrap). A trusted writePath is resolved again
// before every command, so a command must not be able to re-point it (`rm -rf cache && ln -s ~
// cache`) and make the next command's sandbox mount the link's target writable. Each rule has a
// negative control: the same write succeeds once the folder is mounted writable.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, lstatSync, mkdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { bwrapArgv } from "../../src/sandbox/bwrap.ts";
import { createExecutor } from "../../src/sandbox/executor.ts";
import { realFs } from "../../src/sandbox/fsView.ts";
import { resolveLoose, sandboxPaths } from "../../src/sandbox/paths.ts";
import type { ProcessExecutor, SandboxSpec } from "../../src/sandbox/types.ts";
import { SELF_COMMAND, describeSandbox, machineSandbox } from "../support/sandboxSupport.ts";
import { makeTempDir } from "../support/tempDir.ts";

let scratch: string;
let home: string;
let executor: ProcessExecutor;

function project(name: string): string {
  const root = join(scratch, name);
  mkdirSync(root, { recursive: true });
  return root;
}

const spec = (root: string, overrides: Partial<SandboxSpec> = {}): SandboxSpec => ({
  ...executor.spec(),
  root,
  ...overrides,
});
const run = (root: string, sandbox: SandboxSpec, command: string) => executor.run({ command, cwd: root, sandbox });

/** The destinations bwrap binds writable for this spec. */
function writableBinds(s: SandboxSpec): string[] {
  const args = bwrapArgv(s, ["true"]);
  return args.flatMap((arg, i) => (arg === "--bind" ? [args[i + 2] as string] : []));
}

describeSandbox(
  "writePaths in bubblewrap",
  () => {
    beforeAll(async () => {
      scratch = makeTempDir("garuda-writepaths-test-", { real: true });
      home = join(scratch, "home");
      mkdirSync(join(home, ".cache", "x"), { recursive: true });
      mkdirSync(join(home, "shared", "x"), { recursive: true });
      executor = await createExecutor({ root: scratch, home, selfCommand: SELF_COMMAND, probe: machineSandbox });
    });

    afterAll(async () => {
      await executor?.shutdown();
      if (scratch) await rm(scratch, { recursive: true, force: true });
    });

    test(
      "a writePath a command replaced by a symlink to HOME is not mounted: HOME stays " +
        "read-only (negative control: mounted as it resolves unchecked, the write " +
        "succeeds)",
      async () => {
        const root = project("attack");
        const cache = join(root, "cache");
        mkdirSync(cache);
        const s = spec(root, { writePaths: [cache] });
        // The attack itself, from inside the sandbox: the project is writable in build mode.
        const plant = await run(root, s, `rm -rf cache && ln -s ${home} cache`);
        expect(plant.exitCode).toBe(0);
        expect(lstatSync(cache).isSymbolicLink()).toBe(true);

        for (const target of [`${home}/pwned`, "cache/pwned", `${home}/shared/pwned`, "cache/shared/pwned"]) {
          const write = await run(root, s, `echo pwned > ${target}`);
          expect(write.output).toContain("Read-only file system");
          expect(write.exitCode).not.toBe(0);
        }
        expect(existsSync(join(home, "pwned"))).toBe(false);
        expect(writableBinds(s)).not.toContain(home);
        expect(sandboxPaths(s, realFs).refused).toEqual([{ path: cache, link: cache }]);

        // Negative control: the unchecked resolution (what the sandbox mounted before) is HOME itself,
        // and with it mounted a write into HOME goes through (into its plain folders: a writable folder
        // that holds HOME keeps HOME's own top and dotfiles read-only, paths.ts aroundHome).
        const unchecked = resolveLoose(cache, realFs);
        expect(unchecked).toBe(home);
        const control = spec(root, { writePaths: [unchecked] });
        expect(writableBinds(control)).toContain(join(home, "shared"));
        expect((await run(root, control, `echo pwned > ${home}/shared/pwned`)).exitCode).toBe(0);
        expect(readFileSync(join(home, "shared", "pwned"), "utf8")).toBe("pwned\n");
        rmSync(join(home, "shared", "pwned"));
      },
    );

    test(
      "a plain folder as writePath is writable, inside a read-only (plan mode) " +
        "project and outside it (negative control: not without it)",
      async () => {
        const root = project("plain");
        const inside = join(root, "cache");
        const outside = project("plain-out");
        mkdirSync(inside);
        const s = spec(root, { projectReadOnly: true, writePaths: [inside, outside] });
        expect(sandboxPaths(s, realFs).refused).toEqual([]);
        const write = await run(root, s, `echo in > ${inside}/f && echo out > ${outside}/f`);
        expect(write).toMatchObject({ exitCode: 0, output: "" });
        expect(readFileSync(join(inside, "f"), "utf8")).toBe("in\n");
        expect(readFileSync(join(outside, "f"), "utf8")).toBe("out\n");
        expect((await run(root, s, "echo x > g")).output).toContain("Read-only file system");
        const without = spec(root, { projectReadOnly: true });
        expect((await run(root, without, `echo x > ${inside}/g`)).exitCode).not.toBe(0);
        // Outside the project under the host's /tmp: hidden, so a write lands (if at all) in the
        // session's own /tmp, where bwrap left the earlier mount point; the real folder stays untouched.
        await run(root, without, `echo x > ${outside}/g`);
        expect(existsSync(join(outside, "g"))).toBe(false);
      },
    );

    test(
      "writePaths given as ~/… outside the project are writable, also when HOME " +
        "itself is reached through a symlink (negative control: HOME beside them is " +
        "not)",
      async () => {
        const root = project("tilde");
        const linkedHome = join(scratch, "home-link");
        symlinkSync(home, linkedHome);
        const s = spec(root, { home: linkedHome, writePaths: ["~/.cache/x", "~/shared/x"] });
        const paths = sandboxPaths(s, realFs);
        expect(paths.refused).toEqual([]);
        expect(paths.writable).toContain(join(home, "shared/x"));
        const write = await run(root, s, `echo a > ${home}/.cache/x/f && echo b > ${home}/shared/x/f`);
        expect(write).toMatchObject({ exitCode: 0, output: "" });
        expect(readFileSync(join(home, "shared/x/f"), "utf8")).toBe("b\n");
        expect((await run(root, s, `echo x > ${home}/shared/g`)).output).toContain("Read-only file system");
        expect((await run(root, spec(root, { home: linkedHome }), `echo x > ${home}/shared/x/g`)).exitCode).not.toBe(0);
      },
    );

    test(
      "a writePath over ~/.config keeps what the host runs from there read-only, " +
        "existing or not (control: ~/.config/nvim is writable)",
      async () => {
        const root = project("config");
        // Files under ~/.config that the host runs: at login, in the desktop session, in every fish shell.
        const runOnHost = ["systemd/user/evil.service", "autostart/evil.desktop", "environment.d/50-evil.conf"];
        for (const file of runOnHost) mkdirSync(join(home, ".config", file, ".."), { recursive: true });
        mkdirSync(join(home, ".config", "nvim"), { recursive: true });
        const s = spec(root, { writePaths: ["~/.config"] });
        for (const file of [...runOnHost, "fish/config.fish"])
          await run(root, s, `mkdir -p "$(dirname "$HOME/.config/${file}")"; echo planted > "$HOME/.config/${file}"`);
        const written = [...runOnHost, "fish/config.fish"].filter((file) => existsSync(join(home, ".config", file)));
        expect(written).toEqual([]);
        const nvim = await run(root, s, 'echo "set nu" > "$HOME/.config/nvim/init.vim"');
        expect(nvim.exitCode).toBe(0);
        expect(readFileSync(join(home, ".config", "nvim", "init.vim"), "utf8")).toBe("set nu\n");
      },
    );
  },
  "bwrap",
);
