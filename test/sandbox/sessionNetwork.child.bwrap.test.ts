// What the session network's child (src/sandbox/networkChild.ts) can see. It is Garuda's own
// program in `bwrap --unshare-user --unshare-net --ro-bind / /`, and Garuda's working folder is
// usually the project: from source (selfCommand = bun + bridgeMain.ts) Bun reads the bunfig.toml of
// its working folder and runs its preload, so the child starts in "/". And whatever runs in it
// cannot read what the session's commands cannot: the hidden paths are hidden there too (its
// stderr reaches the command's output when it fails).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type EgressProxy, startEgressProxy } from "../../src/sandbox/egressProxy.ts";
import { createExecutor } from "../../src/sandbox/executor.ts";
import type { ProcessExecutor } from "../../src/sandbox/types.ts";
import { SELF_COMMAND, describeSandbox, machineSandbox } from "../support/sandboxSupport.ts";
import { tempDir } from "../support/tempDir.ts";

const KEY = "hidden-key-of-the-network-child-test";
const scratch = tempDir("garuda-netchild-", { real: true });
const home = join(scratch.path, "home");
const root = join(scratch.path, "cloned");
const keyPath = join(home, ".ssh", "id_rsa");
let proxy: EgressProxy;
const executors: ProcessExecutor[] = [];
const startedIn = process.cwd();

async function executorWith(selfCommand: string[]): Promise<ProcessExecutor> {
  const executor = await createExecutor({
    root,
    home,
    selfCommand,
    probe: machineSandbox,
    killGraceMs: 300,
    gitGuard: false,
    serveProxy: (socketPath, fd) => (socketPath === proxy.socketPath ? proxy.serve(fd) : undefined),
  });
  executors.push(executor);
  return executor;
}

const networked = (executor: ProcessExecutor) =>
  executor.run({ command: "echo hello", cwd: root, sandbox: { ...executor.spec(), network: proxy.network } });

describeSandbox(
  "the session network's child",
  () => {
    beforeAll(async () => {
      mkdirSync(join(home, ".ssh"), { recursive: true });
      writeFileSync(keyPath, `${KEY}\n`);
      mkdirSync(root, { recursive: true });
      // A cloned project's Bun configuration and the code it preloads: it says it ran, and fails the child.
      writeFileSync(join(root, "bunfig.toml"), 'preload = ["./preload.ts"]\n');
      writeFileSync(
        join(root, "preload.ts"),
        `if (process.argv.includes("--make-network")) {
  process.stderr.write("THE PROJECT'S PRELOAD RAN");
  process.exit(1);
}
`,
      );
      proxy = await startEgressProxy({ allow: ["svc.test:1"], resolve: async () => ["127.0.0.1"] });
    });
    afterAll(async () => {
      process.chdir(startedIn);
      for (const executor of executors) await executor.shutdown();
      await proxy?.close();
      scratch[Symbol.dispose]();
    });

    test(
      "Garuda started in the project (source mode): the project's bunfig.toml preload " + "does not run in the child",
      async () => {
        process.chdir(root); // `cd project && garuda`, an editor's cwd
        try {
          const run = await networked(await executorWith(SELF_COMMAND));
          expect(run.output).not.toContain("PRELOAD RAN");
          expect(run.output).toContain("hello");
        } finally {
          process.chdir(startedIn);
        }
      },
    );

    test(
      "the child cannot read what the session's commands cannot (~/.ssh): whatever " +
        "runs in it has nothing to hand back",
      async () => {
        // A stand-in for the child that reads the key, says it ran, and fails, so its stderr is shown.
        const reader = ["/bin/sh", "-c", `echo CHILD-RAN >&2; cat '${keyPath}' >&2; exit 1`];
        const run = await networked(await executorWith(reader));
        expect(run.output).toContain("CHILD-RAN");
        expect(run.output).not.toContain(KEY);
      },
    );
  },
  "bwrap",
);
