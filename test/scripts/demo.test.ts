// `bun run demo` as a smoke test: the compiled binary behind `garuda acp`, driven by the ACP
// SDK's client against the mock model, must go exactly as scripted (scripts/demo.ts checks each
// step and exits 0 only if all of them passed).
import { expect, test } from "bun:test";
import { join } from "node:path";
import { ROOT } from "../../scripts/buildTargets.ts";
import { garudaBinary } from "../support/garudaBinary.ts";

test(
  "bun run demo: the scripted editor session passes every check and exits 0",
  async () => {
    // The demo builds dist/garuda itself when it is stale; made current here first, under the lock the
    // other process tests take, so it never writes the binary another test file is running.
    await garudaBinary();
    const proc = Bun.spawn([process.execPath, join(ROOT, "scripts/demo.ts")], {
      cwd: ROOT,
      // No provider key and no model from the environment: the demo brings its own mock.
      env: { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: "1" },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stdout, stderr, code] = await Promise.all([
      new Response(proc.stdout).text(),
      new Response(proc.stderr).text(),
      proc.exited,
    ]);
    if (code !== 0) console.error(`${stdout}\n${stderr}`);
    expect(code).toBe(0);
    expect(stdout).toContain("Garuda asks: Edit notes.txt");
    expect(stdout).toContain("+status: final");
    expect(stdout).toContain("$ wc -l notes.txt");
    expect(stdout).toContain("stop reason: end_turn");
    expect(stdout).toContain("the demo went as scripted");
    expect(stdout).not.toContain("✗");
  },
  { timeout: 240_000 },
);
