// undo's git (src/store/undoGit.ts) through the real executor with the machine's bwrap: it runs as
// Garuda's own host command (ExecRequest.internal), in a PID namespace instead of under a Bun
// keeper, and still works on the host's files; a git child that tries to outlive the call (a
// shell alias that detaches with setsid) is killed when the call ends. Negative control: the
// same call where neither a namespace nor a keeper is there leaves it running.
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createExecutor } from "../../src/sandbox/executor.ts";
import { signalProcess } from "../../src/sandbox/processTree.ts";
import type { ProcessExecutor } from "../../src/sandbox/types.ts";
import { GitRunner } from "../../src/store/undoGit.ts";
import {
  SELF_COMMAND,
  describeSandbox,
  eventually,
  machineSandbox,
  marker,
  sleepers,
} from "../support/sandboxSupport.ts";
import { tempDir } from "../support/tempDir.ts";

const dir = tempDir("garuda-undogit-");
const base = realpathSync(dir.path);
const root = join(base, "project");
const home = join(base, "home");
const gitDir = join(home, "store.git");
mkdirSync(root);
mkdirSync(join(gitDir, "tmp"), { recursive: true });
writeFileSync(join(root, "a.txt"), "one\n");
const executors: ProcessExecutor[] = [];
const NO_SANDBOX = { availability: { available: false as const, reason: "control", fix: "none" } };

async function runner(options: { sandbox: boolean }): Promise<GitRunner> {
  const executor = await createExecutor({
    root,
    home,
    selfCommand: SELF_COMMAND,
    probe: options.sandbox ? machineSandbox : NO_SANDBOX,
    keeperCommand: options.sandbox ? undefined : false,
  });
  executors.push(executor);
  return new GitRunner(executor, { root, gitDir, indexFile: join(gitDir, "index"), tmpDir: join(gitDir, "tmp") });
}

afterAll(async () => {
  for (const e of executors) await e.shutdown();
  dir[Symbol.dispose]();
});

describeSandbox(
  "undo's git without a keeper",
  () => {
    test("a snapshot is made and read back on the host's files, in a PID namespace of its own", async () => {
      const git = await runner({ sandbox: true });
      const made = await git.run({
        script:
          `g init --quiet --template= >/dev/null && g add -A && g -c user.name=u -c ` +
          `user.email=u@e commit -q -m s && g show HEAD:a.txt >"$OUT" && echo "pid $$" ` +
          `>&2`,
        capture: true,
      });
      expect(made.messages).not.toContain("fatal");
      expect(made.exitCode).toBe(0);
      expect(made.stdout.toString()).toBe("one\n");
      expect(Number(/pid (\d+)/.exec(made.messages)?.[1])).toBeLessThan(10);
    });

    test(
      "a git child that tries to outlive the call is killed (negative control: " +
        "without namespace or keeper it stays)",
      async () => {
        const tag = marker();
        // detached before git ends
        const detach = (t: string) =>
          `g -c alias.bg='!setsid sleep ${t} </dev/null >/dev/null 2>&1 & sleep 0.2; echo started' bg`;
        const result = await (await runner({ sandbox: true })).run({ script: detach(tag) });
        expect(result.messages).toContain("started");
        await eventually(() => sleepers(tag).length === 0);

        const control = marker();
        try {
          const uncontained = await (await runner({ sandbox: false })).run({ script: detach(control) });
          expect(uncontained.messages).toContain("started");
          await Bun.sleep(300);
          expect(sleepers(control)).toHaveLength(1);
        } finally {
          for (const pid of sleepers(control)) signalProcess(pid, "SIGKILL");
        }
      },
    );
  },
  "bwrap",
);
