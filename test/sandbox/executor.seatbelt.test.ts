// The Executor with macOS's Seatbelt (sandbox-exec). Registered only on macOS (describeSandbox);
// each rule with its negative control on the host.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { type EgressProxy, startEgressProxy } from "../../src/sandbox/egressProxy.ts";
import { createExecutor } from "../../src/sandbox/executor.ts";
import type { ProcessExecutor } from "../../src/sandbox/types.ts";
import { SELF_COMMAND, describeSandbox, httpGet, httpServer, machineSandbox } from "../support/sandboxSupport.ts";
import { makeTempDir } from "../support/tempDir.ts";

let scratch: string;
let home: string;
let root: string;
let executor: ProcessExecutor;
let proxy: EgressProxy;
let server: ReturnType<typeof httpServer>;

const sandboxed = (command: string, network = executor.spec().network) =>
  executor.run({ command, cwd: root, sandbox: executor.spec({ network }) });
const onHost = (command: string) => executor.run({ command, cwd: root, sandbox: null });

describeSandbox(
  "Executor in Seatbelt",
  () => {
    beforeAll(async () => {
      scratch = makeTempDir("garuda-seatbelt-test-", { real: true });
      home = join(scratch, "home");
      root = join(scratch, "project");
      mkdirSync(join(home, ".ssh"), { recursive: true });
      mkdirSync(root);
      writeFileSync(join(home, ".ssh", "id_rsa"), "-----BEGIN OPENSSH PRIVATE KEY-----\n");
      server = httpServer();
      proxy = await startEgressProxy({
        tcp: true,
        allow: [`svc.test:${server.port}`],
        resolve: async (host) => (host.endsWith(".test") ? ["127.0.0.1"] : []),
      });
      executor = await createExecutor({ root, home, selfCommand: SELF_COMMAND, probe: machineSandbox });
    });

    afterAll(async () => {
      await executor?.shutdown();
      await proxy?.close();
      server?.stop();
      if (scratch) await rm(scratch, { recursive: true, force: true });
    });

    test("writes: inside the root yes, outside no (the host can)", async () => {
      expect((await sandboxed("echo ok > inside.txt && cat inside.txt")).output).toBe("ok\n");
      expect((await sandboxed(`echo x > ${home}/outside.txt`)).exitCode).not.toBe(0);
      expect((await onHost(`echo x > ${home}/outside.txt`)).exitCode).toBe(0);
      expect(readFileSync(join(home, "outside.txt"), "utf8")).toBe("x\n");
    });

    test(".garuda cannot be created in the root (the host can)", async () => {
      expect((await sandboxed("mkdir -p .garuda && echo '{}' > .garuda/settings.json")).exitCode).not.toBe(0);
      expect(existsSync(join(root, ".garuda/settings.json"))).toBe(false);
      expect((await onHost("mkdir -p .garuda && echo '{}' > .garuda/settings.json")).exitCode).toBe(0);
    });

    test("~/.ssh/id_rsa cannot be read (the host can)", async () => {
      expect((await sandboxed(`cat ${home}/.ssh/id_rsa`)).output).not.toContain("PRIVATE KEY");
      expect((await onHost(`cat ${home}/.ssh/id_rsa`)).output).toContain("PRIVATE KEY");
    });

    test("network: only the proxy's port, only allowed hosts (the host reaches the server directly)", async () => {
      expect((await sandboxed(httpGet(server.url("/in", "svc.test")), proxy.network)).output).toBe("hello /in\n");
      expect((await sandboxed(httpGet(server.url("/out", "other.test")), proxy.network)).output).toContain(
        "refused other.test",
      );
      expect((await sandboxed(httpGet(server.url("/direct"), { direct: true }), proxy.network)).exitCode).not.toBe(0);
      expect((await onHost(httpGet(server.url("/direct"), { direct: true }))).output).toBe("hello /direct\n");
    });
  },
  "seatbelt",
);
