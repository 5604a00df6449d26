// Where TinyCC is missing, the egress proxy relays in JavaScript: test/fixtures/nativeRelayWithoutTinyCC.ts
// replaces bun:ffi's cc with one that throws, which reaches every file of a `bun test` process, so
// it runs in a `bun test` of its own here. Negative control: the same tests with the real cc fail
// (the relay loads, connections are relayed natively), checked by hand (NOTES-split400.md).
import { expect, test } from "bun:test";
import { join } from "node:path";

test("without TinyCC the proxy falls back to the JS relay (tests in a process of their own)", () => {
  const scenario = join(import.meta.dir, "../fixtures/nativeRelayWithoutTinyCC.ts");
  const run = Bun.spawnSync([process.execPath, "test", scenario], {
    cwd: join(import.meta.dir, "../.."),
    env: { ...process.env, FORCE_COLOR: "0" },
    stdout: "pipe",
    stderr: "pipe",
  });
  const report = run.stderr.toString() + run.stdout.toString();
  expect(report).toContain(" 2 pass");
  expect(report).toContain(" 0 fail");
  expect(run.exitCode).toBe(0);
}, 60_000);
