// Keys typed for a prompt never answer a question. The real chat from source in a pseudo-terminal
// against the mock model: "y" + Enter arriving as a question appears is kept for the next prompt
// (its Enter dropped) and does not allow anything, while the same keys after the grace window do
// (the negative control: without the guard the first "y" would write the file); and a question
// that comes while a prompt is being edited (a background process's network request, through the
// real sandbox and egress proxy) leaves that prompt as it was, cursor and all.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { QUESTION_GRACE_MS } from "../../src/cli/chat/terminalInput.ts";
import { startMockAnthropic } from "../support/mockAnthropic.ts";
import { ChatPty, chatEnv, workspace } from "../support/chatHarness.ts";

/** The last user message the model received in request `index`, as text. */
function lastPrompt(mock: ReturnType<typeof startMockAnthropic>, index: number): string {
  const message = (mock.requests[index]?.body?.messages as Array<{ role: string; content: unknown }> | undefined)?.at(
    -1,
  );
  const content = message?.content;
  if (typeof content === "string") return content;
  return Array.isArray(content) ? content.map((part: { text?: string }) => part.text ?? "").join("") : "";
}

const LEFT = "\x1b[D";

describe("the chat's questions and type-ahead", () => {
  test('"y" + Enter as the question appears does not answer it and is kept; the same ' +
    "keys after the grace window do", async () => {
    await using mock = startMockAnthropic({
      script: [
        {
          delayMs: 800,
          steps: [{ type: "tool_use", name: "write_file", id: "toolu_a", input: { path: "a.txt", content: "one\n" } }],
        },
        { steps: [{ type: "text", text: "Wrote a." }] },
        { steps: [{ type: "text", text: "Second turn." }] },
      ],
    });
    using ws = workspace();
    const file = join(ws.root, "a.txt");
    const chat = new ChatPty([], { cwd: ws.root, env: chatEnv(mock, ws.home) });
    await chat.prompt();
    chat.type("write a");
    await chat.waitFor("Working…");
    // Type-ahead for the next prompt, while the model works.
    chat.send("fix the");
    await chat.waitFor("[n] Deny");
    // As if the user's typing went on just as the question was drawn.
    chat.send("y\r");
    await Bun.sleep(QUESTION_GRACE_MS + 400);
    expect(chat.text).not.toContain("→ Allow");
    expect(existsSync(file)).toBe(false);
    await chat.waitFor("went to your prompt, not to the question");

    // Well after the question showed, the same keys answer it.
    chat.send("y\r");
    await chat.waitFor("→ Allow once");
    await chat.waitFor("Wrote a.");
    expect(readFileSync(file, "utf8")).toBe("one\n");
    // The draft comes back at the next prompt, the swallowed "y" in it, its Enter not.
    await chat.waitFor("› fix they");
    await Bun.sleep(300);
    expect(mock.requests.length).toBe(2);
    chat.send(" now\r");
    await chat.waitFor("Second turn.");
    expect(lastPrompt(mock, 2)).toBe("fix they now");
    await chat.prompt();
    chat.send("\x04");
    expect(await chat.exit()).toBe(0);
  }, 60_000);

  test.skipIf(process.platform !== "linux")(
    "a question that comes while a prompt is being edited keeps the prompt and its cursor; Enter then sends it",
    async () => {
      const late = "sleep 2.5; curl -sS --max-time 20 -o /dev/null https://late.example/ ; echo curl-exit=$?";
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
          { steps: [{ type: "text", text: "Got the draft." }] },
        ],
      });
      using ws = workspace();
      const chat = new ChatPty([], { cwd: ws.root, env: chatEnv(mock, ws.home) });
      await chat.prompt();
      chat.type("start it");
      await chat.waitFor("It runs.");
      await chat.prompt();
      // A draft with the cursor moved back before "draft".
      chat.send(`keep draft${LEFT.repeat(5)}`);
      const asked = await chat.waitFor("[n] Deny", 20_000);
      expect(asked).toContain("late.example");
      // A key typed for the prompt as the question appears goes to the prompt, not the question.
      chat.send("t");
      await Bun.sleep(QUESTION_GRACE_MS + 400);
      expect(chat.text).not.toContain("→ Deny");
      chat.send("n");
      await chat.waitFor("→ Deny");
      // The prompt is drawn again under the answer, as it was.
      await chat.waitFor("› keep tdraft");
      chat.send("he \r");
      await chat.waitFor("Got the draft.");
      expect(lastPrompt(mock, 2)).toBe("keep the draft");
      await chat.prompt();
      chat.send("\x04");
      expect(await chat.exit()).toBe(0);
    },
    60_000,
  );
});
