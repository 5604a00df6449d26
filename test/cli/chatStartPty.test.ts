// Issue 34.6, how a chat starts, in a real pseudo-terminal against the mock Anthropic server:
// `garuda "task"` starts the chat and sends the task as its first prompt (then the prompt waits,
// and Up recalls the task), and an Anthropic key already in the environment is used as it is:
// no setup question, the chat starts with Claude Sonnet (the first-run test is the negative
// control: without a key, setup is offered).
import { describe, expect, test } from "bun:test";
import { startMockAnthropic } from "../support/mockAnthropic.ts";
import { ChatPty, chatEnv, KEYS, workspace } from "../support/chatHarness.ts";

const UP = "\x1b[A";

/** The text of the last user message of request `index`. */
function userText(mock: { requests: Array<{ body?: Record<string, unknown> }> }, index: number): string {
  const messages = mock.requests[index]?.body?.messages as Array<{ role: string; content: unknown }> | undefined;
  const last = messages?.filter((message) => message.role === "user").at(-1);
  return JSON.stringify(last?.content ?? "");
}

describe("starting the chat", () => {
  test('`garuda "task"` sends the task as the first prompt, then waits at the prompt', async () => {
    await using mock = startMockAnthropic({
      script: [{ steps: [{ type: "text", text: "Started on the task." }] }],
    });
    using ws = workspace();
    const chat = new ChatPty(["--plan", "list the files, then stop"], { cwd: ws.root, env: chatEnv(mock, ws.home) });
    await chat.waitFor("plan mode");
    const shown = await chat.waitFor("Started on the task.");
    expect(shown).toContain("› list the files, then stop");
    expect(mock.requests).toHaveLength(1);
    expect(userText(mock, 0)).toContain("list the files, then stop");
    await chat.prompt();
    // The task is in the history: Up brings it back.
    chat.send(UP);
    await chat.waitFor(/› list the files, then stop$/m);
    chat.send("\x15");
    chat.send(KEYS.ctrlD);
    expect(await chat.exit()).toBe(0);
    expect(mock.requests).toHaveLength(1);
  }, 60_000);

  test("an Anthropic key in the environment is used without asking for setup", async () => {
    await using mock = startMockAnthropic({
      apiKey: "sk-ant-from-env",
      script: [{ steps: [{ type: "text", text: "Hello with your own key." }] }],
    });
    using ws = workspace();
    const { GARUDA_MODEL: _none, ...env } = chatEnv(mock, ws.home, { ANTHROPIC_API_KEY: "sk-ant-from-env" });
    const chat = new ChatPty([], { cwd: ws.root, env });
    const banner = await chat.waitFor("build mode");
    expect(banner).toContain("claude-sonnet-5");
    expect(chat.text).not.toContain("Set it up now");
    await chat.prompt();
    chat.type("hi");
    await chat.waitFor("Hello with your own key.");
    // The mock answers only requests that carry that key.
    expect(mock.requests).toHaveLength(1);
    await chat.prompt();
    chat.send(KEYS.ctrlD);
    expect(await chat.exit()).toBe(0);
  }, 60_000);
});
