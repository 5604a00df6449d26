// Issue 20.7: a deleted working folder gets Garuda's own message. Started in a folder that was
// removed under the shell, `garuda` and `garuda run` say so and what to do (exit 1), not an
// "unexpected error" with a stack; a project folder deleted during a session: the call is not run
// and the user reads a sentence for them, while the model reads what to tell the user.
import { describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { startMockAnthropic } from "../support/mockAnthropic.ts";
import { ENTRY, chatEnv, lastToolResult, runPipedIn, workspace } from "../support/chatHarness.ts";

/** Runs the CLI with its working folder removed just before it starts. */
async function inRemovedFolder(folder: string, args: string[], env: Record<string, string>) {
  const child = Bun.spawn(
    [
      "sh",
      "-c",
      'mkdir -p "$1" && cd "$1" && rmdir "$1" && shift && exec "$@"',
      "sh",
      folder,
      process.execPath,
      ENTRY,
      ...args,
    ],
    { env, stdin: "ignore", stdout: "pipe", stderr: "pipe" },
  );
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  return { stdout, stderr, code };
}

describe("a deleted working folder", () => {
  test("at start: garuda and garuda run say so, exit 1, no stack", async () => {
    await using mock = startMockAnthropic({});
    using ws = workspace();
    const env = chatEnv(mock, ws.home);
    for (const args of [["run", "hi"], []]) {
      const result = await inRemovedFolder(join(ws.root, "gone"), args, env);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(
        "the current folder no longer exists (it was deleted or moved while the shell " +
          "was in it). cd into a folder that exists",
      );
      expect(result.stderr).not.toContain("unexpected error");
    }
    expect(mock.requests).toHaveLength(0);
  }, 30_000);

  test("during a session: the write is not run; the user reads Garuda's sentence, the " +
    "model what to tell them", async () => {
    using ws = workspace();
    await using mock = startMockAnthropic({
      script: [
        {
          steps: [
            { type: "tool_use", name: "write_file", id: "toolu_write", input: { path: "a.txt", content: "x\n" } },
          ],
        },
        { steps: [{ type: "text", text: "The folder is gone." }] },
      ],
      // The folder goes while the model answers the first request.
      onRequest: (request) => {
        if (request.path.endsWith("/v1/messages")) rmSync(ws.root, { recursive: true, force: true });
      },
    });
    const run = await runPipedIn(["run", "write a.txt"], { cwd: ws.root, env: chatEnv(mock, ws.home) });
    expect(run.stderr).toContain(`✗ Not run: the project folder ${ws.root} no longer exists (deleted or moved).`);
    expect(run.stderr).not.toContain("Tell the user");
    expect(lastToolResult(mock, 1)).toContain("Tell the user: they can put the folder back");
  }, 30_000);
});
