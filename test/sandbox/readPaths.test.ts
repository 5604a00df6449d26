// A request's readPaths (an MCP server's program or script under the host's /tmp): the named
// file is mounted read-only, never the folder around it, where another program may keep its
// socket (tmux, ssh-agent, X): a socket on a read-only mount can still be connected to.
import { expect, test } from "bun:test";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { createExecutor } from "../../src/sandbox/executor.ts";
import { makeTempDir, tempDir } from "../support/tempDir.ts";
import { describeSandbox, machineSandbox, SELF_COMMAND } from "../support/sandboxSupport.ts";

describeSandbox("programs that live under the host's /tmp", () => {
  test(
    "the named file is visible in the sandbox, read-only; the folder around it is " +
      "not (negative control: hidden without)",
    async () => {
      using root = tempDir();
      const checkout = makeTempDir("garuda-checkout-", { under: "/tmp" });
      const socketPath = join(checkout, "host.sock");
      const listener = createServer((socket) => socket.end("host-socket-answered\n"));
      await new Promise<void>((done) => listener.listen(socketPath, done));
      try {
        mkdirSync(join(checkout, "lib"));
        writeFileSync(join(checkout, "lib", "helper.sh"), "echo helper-ran\n");
        const script = join(checkout, "run.sh");
        writeFileSync(
          script,
          `echo script-ran\ncat ${join(checkout, "lib", "helper.sh")} >/dev/null 2>&1 && ` +
            `echo helper-visible || echo helper-hidden\ntest -S ${socketPath} && echo ` +
            `socket-visible || echo socket-hidden\n`,
        );
        const executor = await createExecutor({
          root: root.path,
          home: root.path,
          selfCommand: SELF_COMMAND,
          probe: machineSandbox,
        });
        try {
          const sandbox = executor.spec();
          const hidden = await executor.run({ command: `sh ${script}`, cwd: root.path, sandbox });
          expect(hidden.output).not.toContain("script-ran");
          const shown = await executor.run({ command: `sh ${script}`, cwd: root.path, sandbox, readPaths: [script] });
          expect(shown.output).toContain("script-ran");
          expect(shown.output).toContain("helper-hidden");
          expect(shown.output).toContain("socket-hidden");
          // The control: the same check on the host sees the socket.
          const host = Bun.spawnSync(["sh", script]).stdout.toString();
          expect(host).toContain("socket-visible");
          const write = await executor.run({
            command: `echo x >> ${script}`,
            cwd: root.path,
            sandbox,
            readPaths: [script],
          });
          expect(write.exitCode).not.toBe(0);
        } finally {
          await executor.shutdown();
        }
      } finally {
        listener.close();
        rmSync(checkout, { recursive: true, force: true });
      }
    },
  );
});
