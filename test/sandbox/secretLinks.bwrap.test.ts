// Secrets that ~/.ssh only links to (src/sandbox/secretLinks.ts), in the real bubblewrap sandbox.
// GNU stow, when ~/.ssh already exists, links each key: ~/.ssh/id_ed25519 →
// ~/dotfiles/ssh/.ssh/id_ed25519; a folder of keys can be linked in: ~/.ssh/keys → ~/vault. A
// sandboxed command reads neither at its real path (`find ~/dotfiles -type f -exec cat {} +` names
// no secret). Negative controls: the rest of ~/dotfiles stays readable, and a link in ~/.ssh to a
// folder that holds the project does not hide the project.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createExecutor } from "../../src/sandbox/executor.ts";
import type { ProcessExecutor } from "../../src/sandbox/types.ts";
import { describeSandbox, testExecutorOptions } from "../support/sandboxSupport.ts";
import { tempDir } from "../support/tempDir.ts";

const scratch = tempDir("garuda-secretlinks-", { real: true });
const home = join(scratch.path, "home");
const work = join(home, "work");
const root = join(work, "project");
const stowed = join(home, "dotfiles", "ssh", ".ssh");
let executor: ProcessExecutor;

describeSandbox(
  "keys that ~/.ssh links to",
  () => {
    beforeAll(async () => {
      mkdirSync(join(home, ".ssh"), { recursive: true });
      mkdirSync(stowed, { recursive: true });
      mkdirSync(join(home, "vault"), { recursive: true });
      mkdirSync(root, { recursive: true });
      writeFileSync(join(root, "README.md"), "PROJECT-README\n");
      writeFileSync(join(home, ".ssh", "id_rsa"), "PLAIN-KEY-IN-SSH\n");
      writeFileSync(join(stowed, "id_ed25519"), "STOWED-KEY\n");
      writeFileSync(join(home, "dotfiles", "vimrc"), "DOTFILES-VIMRC\n");
      symlinkSync("../dotfiles/ssh/.ssh/id_ed25519", join(home, ".ssh", "id_ed25519"));
      writeFileSync(join(home, "vault", "work"), "VAULT-KEY\n");
      symlinkSync(join(home, "vault"), join(home, ".ssh", "keys"));
      // A link to a folder that holds the project (and to the home): hiding it would hide the session's work.
      symlinkSync(work, join(home, ".ssh", "work"));
      symlinkSync(home, join(home, ".ssh", "home"));
      executor = await createExecutor({ ...testExecutorOptions(root, home), gitGuard: false });
    });
    afterAll(async () => {
      await executor?.shutdown();
      scratch[Symbol.dispose]();
    });

    const read = (command: string) => executor.run({ command, cwd: root, sandbox: executor.spec() });

    test("the key that is a file in ~/.ssh is hidden", async () => {
      expect((await read(`cat '${join(home, ".ssh", "id_rsa")}'`)).output).not.toContain("PLAIN-KEY-IN-SSH");
    });

    test(
      "the key ~/.ssh/id_ed25519 links to (stow) is hidden at its real path; the rest " + "of ~/dotfiles is not",
      async () => {
        const run = await read(`find '${join(home, "dotfiles")}' -type f -exec cat {} +`);
        expect(run.output).not.toContain("STOWED-KEY");
        expect(run.output).toContain("DOTFILES-VIMRC");
      },
    );

    test("the keys in a folder ~/.ssh/keys links to are hidden at their real path", async () => {
      expect((await read(`cat '${join(home, "vault", "work")}'`)).output).not.toContain("VAULT-KEY");
    });

    test("negative control: a link in ~/.ssh to a folder that holds the project (or to ~) hides neither", async () => {
      expect((await read("cat README.md")).output).toContain("PROJECT-README");
    });
  },
  "bwrap",
);
