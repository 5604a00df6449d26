import { expect, test } from "bun:test";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createExecutor } from "../../src/sandbox/executor.ts";
import { makeTempDir, tempDir } from "../support/tempDir.ts";
import { describeSandbox, machineSandbox, SELF_COMMAND } from "../support/sandboxSupport.ts";

describeSandbox("programs that live under the host's /tmp", () => {
  test("are visible in the sandbox when the request names them (negative control: hidden without)", async () => {
    using root = tempDir();
    const checkout = makeTempDir("garuda-checkout-", { under: "/tmp" });
    try {
      mkdirSync(join(checkout, "lib"));
      writeFileSync(join(checkout, "lib", "helper.sh"), "echo helper-ran\n");
      const script = join(checkout, "run.sh");
      writeFileSync(script, `. ${join(checkout, "lib", "helper.sh")}\n`);
      const executor = await createExecutor({
        root: root.path,
        home: root.path,
        selfCommand: SELF_COMMAND,
        probe: machineSandbox,
      });
      try {
        const sandbox = executor.spec();
        const hidden = await executor.run({ command: `sh ${script}`, cwd: root.path, sandbox });
        expect(hidden.output).not.toContain("helper-ran");
        const shown = await executor.run({ command: `sh ${script}`, cwd: root.path, sandbox, readPaths: [script] });
        expect(shown.output).toContain("helper-ran");
        const write = await executor.run({
          command: `echo x > ${join(checkout, "new.txt")}`,
          cwd: root.path,
          sandbox,
          readPaths: [script],
        });
        expect(write.exitCode).not.toBe(0);
      } finally {
        await executor.shutdown();
      }
    } finally {
      rmSync(checkout, { recursive: true, force: true });
    }
  });
});
