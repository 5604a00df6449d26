// Issue 20.7: a prompt larger than the model's context window is refused before it is sent, with
// its size and the window, in the chat and in `garuda run` (which then exits 1: nothing was done);
// a prompt that fits is sent (negative control).
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startMockAnthropic } from "../support/mockAnthropic.ts";
import { chatEnv, runPipedIn, workspace } from "../support/chatHarness.ts";

const REFUSED =
  "The prompt is 5,000 characters, more than the 2,000 Garuda sends in one " +
  "message to this model (half its context window of 1,000 tokens), so nothing " +
  "was sent.";

describe("a prompt larger than the context window", () => {
  test("is refused with its size and the window; run exits 1; a small one is sent", async () => {
    await using mock = startMockAnthropic({ script: [{ steps: [{ type: "text", text: "Small is fine." }] }] });
    using ws = workspace();
    mkdirSync(join(ws.home, ".garuda"), { recursive: true, mode: 0o700 });
    writeFileSync(
      join(ws.home, ".garuda", "models.json"),
      JSON.stringify({ models: { "claude-tiny-1": { contextWindow: 1000 } } }),
    );
    const env = chatEnv(mock, ws.home, { GARUDA_MODEL: "claude-tiny-1" });
    const big = "word ".repeat(1000);
    const run = await runPipedIn(["run", big], { cwd: ws.root, env });
    expect(run.stderr).toContain(REFUSED);
    expect(run.code).toBe(1);
    const chat = await runPipedIn([], { cwd: ws.root, env, stdin: `${big}\n` });
    expect(chat.stdout).toContain(REFUSED);
    expect(mock.requests).toHaveLength(0);
    const small = await runPipedIn(["run", "hello"], { cwd: ws.root, env });
    expect(small.code).toBe(0);
    expect(small.stdout).toContain("Small is fine.");
  }, 30_000);
});
