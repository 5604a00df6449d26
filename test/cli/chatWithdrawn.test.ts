// Issue 20.1: a network question that outlives its command. The real chat (`garuda` from source)
// in a pseudo-terminal against the mock model, with the real sandbox and egress proxy: `curl`
// asks about a host, gives up (--max-time) while the question waits, and the question is
// withdrawn with a line that says so; the next question (an edit) gets the keys, and the same
// host is asked about afresh (the proxy kept nothing from the withdrawn question).
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { startMockAnthropic } from "../support/mockAnthropic.ts";
import { ChatPty, chatEnv, lastToolResult, workspace } from "../support/chatHarness.ts";

const CURL = "curl -sS --max-time 3 -o /dev/null https://slow.example/ ; echo curl-exit=$?";

describe("garuda (the chat): a question whose command ended", () => {
  test("is withdrawn with a line saying so, and the next questions get the keys", async () => {
    await using mock = startMockAnthropic({
      script: [
        { steps: [{ type: "tool_use", name: "bash", id: "toolu_curl", input: { command: CURL } }] },
        {
          steps: [
            {
              type: "tool_use",
              name: "write_file",
              id: "toolu_write",
              input: { path: "notes.txt", content: "a final note\n" },
            },
          ],
        },
        { steps: [{ type: "tool_use", name: "bash", id: "toolu_curl2", input: { command: CURL } }] },
        { steps: [{ type: "text", text: "All done." }] },
      ],
    });
    using ws = workspace();
    const chat = new ChatPty([], { cwd: ws.root, env: chatEnv(mock, ws.home) });
    await chat.prompt();
    chat.type("Fetch it, then write the note");
    const asked = await chat.waitFor("[n] Deny");
    expect(asked).toContain("slow.example");
    // No key is pressed: curl gives up after 3 s, and the question goes with it.
    await chat.waitFor("Withdrawn: the command ended; not asked.", 20_000);
    await chat.waitFor("curl-exit=");

    // The next question gets the keys.
    const edit = await chat.waitFor("[n] Deny", 20_000);
    expect(edit).toContain("notes.txt");
    await chat.answer("y");
    await chat.waitFor("→ Allow once");
    for (let i = 0; i < 100 && !existsSync(join(ws.root, "notes.txt")); i++) await Bun.sleep(20);
    expect(readFileSync(join(ws.root, "notes.txt"), "utf8")).toBe("a final note\n");

    // The same host is asked about again, and n refuses it at once (curl does not wait its 3 s).
    const again = await chat.waitFor("[n] Deny", 20_000);
    expect(again).toContain("slow.example");
    await chat.answer("n");
    const answered = Date.now();
    await chat.waitFor("All done.", 20_000);
    expect(Date.now() - answered).toBeLessThan(2_500);
    expect(lastToolResult(mock, 3)).toContain("curl-exit=");
    // The model hears the first curl's own failure, the user's line is the chat's.
    expect(lastToolResult(mock, 1)).toContain("curl-exit=");
    chat.send("\x04");
    expect(await chat.exit()).toBe(0);
  }, 90_000);
});
