// The bash tool in the real OS sandbox (bubblewrap): sandbox failures get a `[Garuda: …]` hint
// that offers outside_sandbox (or, when the policy forbids it, says so), other failures get none,
// outside_sandbox really runs on the host, and cancel empties the sandbox's process tree.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { bashTool } from "../../src/tools/bash.ts";
import { describeSandbox, eventually, marker, sleepers } from "../support/sandboxSupport.ts";
import { type Workspace, call, execContext, workspace } from "../support/execFixtures.ts";

describeSandbox("bash in the OS sandbox", () => {
  let ws: Workspace;
  beforeAll(async () => {
    ws = await workspace("sandbox");
  });
  afterAll(async () => {
    await ws.dispose();
  });
  const bash = bashTool();

  test("the project is writable: no hint on success", async () => {
    const result = await call(bash, { command: "echo hi > made.txt && cat made.txt" }, execContext(ws));
    expect(result.output).toBe("Exit code: 0\nhi");
    expect(readFileSync(join(ws.root, "made.txt"), "utf8")).toBe("hi\n");
  });

  test("a write outside the writable set fails with a hint that offers outside_sandbox", async () => {
    const target = join(ws.home, "outside.txt");
    const result = await call(bash, { command: `echo x > ${target}` }, execContext(ws));
    expect(result.isError).toBe(true);
    expect(result.output).toMatch(/Read-only file system|Permission denied/);
    expect(result.output).toContain(`[Garuda: this command ran in the OS sandbox, which refused writing ${target}`);
    expect(result.output).toContain(
      "run the same command again with outside_sandbox: true; the user will be asked to approve it.]",
    );
    expect(existsSync(target)).toBe(false);

    // outside_sandbox: the same command runs on the host and succeeds (negative control).
    const outside = await call(bash, { command: `echo x > ${target}`, outside_sandbox: true }, execContext(ws));
    expect(outside.output).toBe("Exit code: 0\n(no output)");
    expect(readFileSync(target, "utf8")).toBe("x\n");
  });

  test("when the team policy forbids leaving the sandbox, the hint says so instead", async () => {
    const strict = bashTool({ outsideSandbox: "forbidden" });
    const result = await call(strict, { command: "touch /usr/garuda-sandbox-hint-test" }, execContext(ws));
    expect(result.output).toContain(
      "[Garuda: this command ran in the OS sandbox, which refused writing /usr/garuda-sandbox-hint-test",
    );
    expect(result.output).toContain("Commands may not run outside the sandbox here");
    expect(result.output).not.toContain("outside_sandbox: true");
  });

  test(
    "a network failure in the sandbox gets the network hint; the same text from a " + "host command does not",
    async () => {
      const result = await call(bash, { command: "curl -sS --max-time 5 http://example.com/" }, execContext(ws));
      expect(result.isError).toBe(true);
      expect(result.output).toContain("Could not resolve host");
      expect(result.output).toContain(
        "[Garuda: this command ran in the OS sandbox, which has no network access; that is likely why it failed.",
      );
      // negative control: outside the sandbox the same message is the command's own problem (no request is made here)
      const host = await call(
        bash,
        { command: "echo 'curl: (6) Could not resolve host: example.com' >&2; exit 6", outside_sandbox: true },
        execContext(ws),
      );
      expect(host.isError).toBe(true);
      expect(host.output).not.toContain("[Garuda:");
    },
  );

  test("an ordinary failure gets no sandbox hint", async () => {
    const result = await call(bash, { command: "ls does-not-exist" }, execContext(ws));
    expect(result.isError).toBe(true);
    expect(result.output).not.toContain("[Garuda:");
  });

  test("plan mode (project read-only): a write in the project is explained as plan mode", async () => {
    const result = await call(
      bash,
      { command: "touch planned.txt" },
      execContext(ws, { sandbox: ws.executor.spec({ projectReadOnly: true }) }),
    );
    expect(result.isError).toBe(true);
    expect(result.output).toContain("[Garuda: in plan mode commands run in the sandbox with the project read-only");
    expect(existsSync(join(ws.root, "planned.txt"))).toBe(false);
  });

  test("cancel in the sandbox: the command and a `setsid sleep &` child are both gone", async () => {
    const tag = marker();
    const child = marker();
    const controller = new AbortController();
    const pending = call(
      bash,
      { command: `setsid sleep ${child} & sleep ${tag}` },
      execContext(ws, { signal: controller.signal }),
    );
    await eventually(() => sleepers(tag).length === 1 && sleepers(child).length === 1, 5_000);
    controller.abort();
    const result = await pending;
    expect(result.summary).toBe("Cancelled");
    await eventually(() => sleepers(tag).length === 0 && sleepers(child).length === 0);
  });
  test(
    "a command longer than the system allows says so and how to go on, not that the " +
      "sandbox failed (negative control: one byte under the argument limit runs)",
    async () => {
      const long = `echo ${"x".repeat(200_000)} > /dev/null`;
      const result = await call(bash, { command: long }, execContext(ws));
      expect(result.isError).toBe(true);
      expect(result.output).toBe(
        `The command did not run: the command is ` +
          `${Buffer.byteLength(long).toLocaleString("en-US")} bytes, longer than the ` +
          `system allows for a command line (128 KiB for one argument, about 2 MB for all ` +
          `arguments and the environment together), so it did not run. Write it to a file ` +
          `(write_file) and run that file instead (bash path/to/script.sh).`,
      );
      expect(result.output).not.toMatch(/bwrap|E2BIG|posix_spawn/);
      const fits = `: ${"x".repeat(131_071 - 3)}`;
      expect(Buffer.byteLength(fits)).toBe(131_070);
      expect((await call(bash, { command: `${fits}x` }, execContext(ws))).output).toBe("Exit code: 0\n(no output)");
    },
  );
});
