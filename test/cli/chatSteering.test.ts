// Typing while the agent works, in the real chat (from source) in a pseudo-terminal against the
// mock model: the draft shows under the spinner; Tab steers (the model reads it at its next step,
// after the running command's result, and the transcript shows it there); Enter queues (it runs
// as the next prompt when the turn ends); what is left unsent is the next prompt's draft; Ctrl-C
// drops the queue and says so, and a steering message the stop came before is quoted, not lost.
//
// The turn is held mid-flight by its command: `until [ -f go ]` runs until the test writes `go`.
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { MAX_QUEUED_PROMPTS } from "../../src/runtime/promptQueue.ts";
import { type MockResponse, startMockAnthropic } from "../support/mockAnthropic.ts";
import { ChatPty, KEYS, chatEnv, workspace } from "../support/chatHarness.ts";

const TAB = "\t";

const heldCall: MockResponse = {
  steps: [
    { type: "text", text: "Running it." },
    {
      type: "tool_use",
      name: "bash",
      id: "toolu_held",
      input: { command: "until [ -f go ]; do sleep 0.05; done; echo released" },
    },
  ],
};
const reply = (text: string): MockResponse => ({ steps: [{ type: "text", text }] });

/** The content blocks of the last user message of request `index`. */
function lastUser(mock: ReturnType<typeof startMockAnthropic>, index: number): Array<Record<string, unknown>> {
  const messages = mock.requests[index]?.body?.messages as Array<{ role: string; content: unknown }> | undefined;
  const content = messages?.at(-1)?.content;
  return typeof content === "string" ? [{ type: "text", text: content }] : (content as Array<Record<string, unknown>>);
}

describe("the chat while a turn runs", () => {
  test("Tab steers after the running command, Enter queues a prompt for after the " +
    "turn, the rest stays a draft", async () => {
    await using mock = startMockAnthropic({
      script: [heldCall, reply("Read the README too."), reply("Summary done.")],
    });
    using ws = workspace();
    const chat = new ChatPty([], { cwd: ws.root, env: chatEnv(mock, ws.home) });
    await chat.prompt();
    chat.type("Run the check");
    await chat.waitFor("● $ until");

    chat.send("look at the README");
    await chat.waitFor("› look at the README▏");
    chat.send(TAB);
    await chat.waitFor("↪ Steering, for the model's next step: look at the README");
    chat.send("then summarize");
    chat.send(KEYS.enter);
    await chat.waitFor("⧗ Queued, runs after this turn: then summarize");
    chat.send("half typed");
    await chat.waitFor("› half typed▏");
    // The command was not stopped by any of it.
    expect(mock.requests).toHaveLength(1);
    writeFileSync(join(ws.root, "go"), "");

    // Shown where the model got it, then its answer; then the queued prompt runs as a turn of its own.
    await chat.waitFor("› look at the README (steering)");
    await chat.waitFor("Read the README too.");
    await chat.waitFor("› then summarize");
    await chat.waitFor("Summary done.");
    // What was not sent is the next prompt's draft.
    await chat.waitFor("› half typed");

    const steered = lastUser(mock, 1);
    expect(steered.map((block) => block.type)).toEqual(["tool_result", "text"]);
    expect(JSON.stringify(steered[0])).toContain("released");
    expect(steered[1]?.text).toBe("look at the README");
    expect(JSON.stringify(lastUser(mock, 2))).toContain("then summarize");
    expect(mock.requests).toHaveLength(3);
    chat.process.kill("SIGTERM");
    expect(await chat.exit()).toBe(143);
  }, 60_000);

  test("Ctrl-C drops the queued prompts with a line (one more than 8 stays a draft), " +
    "and quotes a steering message the stop came before", async () => {
    await using mock = startMockAnthropic({ script: [heldCall, reply("Next turn.")] });
    using ws = workspace();
    const chat = new ChatPty([], { cwd: ws.root, env: chatEnv(mock, ws.home) });
    await chat.prompt();
    chat.type("Run the check");
    await chat.waitFor("● $ until");
    for (let i = 0; i < MAX_QUEUED_PROMPTS; i++) {
      chat.type(`later ${i}`);
      await chat.waitFor(`⧗ Queued, runs after this turn: later ${i}`);
    }
    // One more than the queue keeps stays in the draft.
    chat.type("one too many");
    await chat.waitFor(`${MAX_QUEUED_PROMPTS} prompts already wait for this turn; this one stays in your draft.`);
    chat.send("\x15"); // Ctrl-U: the draft is emptied
    chat.send(`too late${TAB}`);
    await chat.waitFor("↪ Steering");

    chat.send(KEYS.ctrlC);
    await chat.waitFor("Your message was not given to the model (the turn was stopped): “too late”");
    await chat.waitFor(`the ${MAX_QUEUED_PROMPTS} prompts queued behind this turn were dropped; none of them ran.`);
    await chat.prompt();
    expect(mock.requests).toHaveLength(1);

    // The chat goes on as usual.
    chat.type("Hello again");
    await chat.waitFor("Next turn.");
    expect(JSON.stringify(lastUser(mock, 1))).not.toContain("later");
    await chat.prompt();
    chat.send(KEYS.ctrlD);
    expect(await chat.exit()).toBe(0);
  }, 60_000);
});
