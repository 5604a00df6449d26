// A question drawn in place of a withdrawn one gets a grace window of its own. The real chat from
// source in a pseudo-terminal against the mock model, with the real sandbox and egress proxy: a
// sandboxed `curl` asks about a host that is not allowed and gives up (--max-time) while the
// question waits, so the question is withdrawn; the write_file queued behind it in the same
// response is asked next. A "y" pressed as that question appears (meant for the one that went)
// does not answer it and writes nothing (the negative control: without the window it would);
// after the window, Escape denies it. And a question asked aside a prompt being edited sits one
// blank row under the last answer, as the prompt did, and gives the prompt back one blank row under
// its answer; at 50 columns its menu breaks between choices.
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { QUESTION_GRACE_MS } from "../../src/cli/chat/terminalInput.ts";
import { startMockAnthropic } from "../support/mockAnthropic.ts";
import { ChatPty, chatEnv, lastToolResult, workspace } from "../support/chatHarness.ts";
import { renderScreen } from "../support/screenModel.ts";

const CURL = "curl -sS --max-time 2 -o /dev/null https://slow.example/ ; echo curl-exit=$?";

describe("garuda (the chat): the question after a withdrawn one", () => {
  test("a key pressed as it appears is not its answer; Escape after the window denies it", async () => {
    await using mock = startMockAnthropic({
      script: [
        {
          steps: [
            { type: "tool_use", name: "bash", id: "toolu_curl", input: { command: CURL } },
            {
              type: "tool_use",
              name: "write_file",
              id: "toolu_write",
              input: { path: "notes.txt", content: "a note\n" },
            },
          ],
        },
        { steps: [{ type: "text", text: "All done." }] },
      ],
    });
    using ws = workspace();
    const file = join(ws.root, "notes.txt");
    const chat = new ChatPty([], { cwd: ws.root, env: chatEnv(mock, ws.home) });
    await chat.prompt();
    chat.type("Fetch it, then write the note");
    expect(await chat.waitFor("[n] Deny", 20_000)).toContain("slow.example");
    await chat.waitFor("Withdrawn: the command ended; not asked.", 20_000);

    // The write, queued behind it, is drawn next; the user's "y" for the question that went lands on it.
    const write = await chat.waitFor("[n] Deny", 20_000);
    expect(write).toContain("notes.txt");
    const drawnSeen = Date.now();
    chat.send("y");
    const sentAfter = Date.now() - drawnSeen;
    await Bun.sleep(QUESTION_GRACE_MS + 300);
    expect(chat.text).not.toContain("→ Allow");
    expect(existsSync(file)).toBe(false);
    await chat.waitFor("went to your prompt, not to the question");

    // After the window, Escape answers it: deny.
    await chat.answer("\x1b");
    await chat.waitFor("→ Deny");
    await chat.waitFor("All done.", 20_000);
    expect(existsSync(file)).toBe(false);
    expect(lastToolResult(mock, 1)).toContain("curl-exit=");
    // The "y" went to the prompt, as typing; it is erased there and the chat ends.
    await chat.waitFor("› y");
    chat.send("\x7f\x04");
    expect(await chat.exit()).toBe(0);
    // The key was sent well inside the window, or the test proves nothing.
    expect(sentAfter).toBeLessThan(QUESTION_GRACE_MS / 2);
  }, 90_000);

  test.skipIf(process.platform !== "linux")(
    "a question aside the prompt: one blank row above it, one above the prompt it " +
      "gives back; a narrow menu breaks between choices",
    async () => {
      const late = "sleep 2; curl -sS --max-time 20 -o /dev/null https://late.example/ ; echo curl-exit=$?";
      await using mock = startMockAnthropic({
        script: [
          {
            steps: [
              {
                type: "tool_use",
                name: "process_manager",
                id: "toolu_late",
                input: { action: "start", command: late },
              },
            ],
          },
          { steps: [{ type: "text", text: "It runs." }] },
        ],
      });
      using ws = workspace();
      const chat = new ChatPty([], { cwd: ws.root, env: chatEnv(mock, ws.home), cols: 50 });
      await chat.prompt();
      chat.type("start it");
      await chat.waitFor("It runs.");
      await chat.prompt();
      chat.send("keep draft");
      await chat.waitFor("[n] Deny", 20_000);
      await chat.answer("n");
      await chat.waitFor("→ Deny");
      await chat.waitFor("› keep draft");
      await Bun.sleep(100);
      const rows = renderScreen(chat.raw, 50, 40);
      const answerRow = rows.indexOf("It runs.");
      expect(rows.slice(answerRow, answerRow + 3)).toEqual([
        "It runs.",
        "",
        "? Allow a sandboxed command to reach this host",
      ]);
      const menu = rows.findIndex((row) => row.startsWith("  [y]"));
      expect(rows.slice(menu, menu + 5)).toEqual([
        "  [y] Allow once   [s] Allow for this session",
        "  [n] Deny   [t] Deny and say why",
        "  → Deny",
        "",
        "› keep draft",
      ]);
      chat.send("\x15\x04");
      expect(await chat.exit()).toBe(0);
    },
    60_000,
  );
});
