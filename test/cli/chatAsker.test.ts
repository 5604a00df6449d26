// The ask_user tool in the real chat (`garuda` from source) in a pseudo-terminal, against the mock
// Anthropic server: the question as a menu (its hidden character made visible), one pick, several
// picks, an answer in the user's own words, a decline, and Ctrl-C while the menu waits; each
// reaches the model as the tool's result. Over a pipe, lines instead of keys. In plan mode too.
// `garuda run` (no one to answer) does not offer the tool at all.
import { describe, expect, test } from "bun:test";
import { DECLINED_OUTPUT } from "../../src/tools/askUser.ts";
import { type MockResponse, startMockAnthropic } from "../support/mockAnthropic.ts";
import { ChatPty, chatEnv, KEYS, lastToolResult, runPipedIn, workspace } from "../support/chatHarness.ts";

const OPTIONS = [{ label: "Red" }, { label: "Green", description: "the calm one" }, { label: "Blue" }];

/** One turn: the model asks (call `id`, `input`), then says `after`. */
function askTurn(id: string, input: unknown, after: string): MockResponse[] {
  return [{ steps: [{ type: "tool_use", name: "ask_user", id, input }] }, { steps: [{ type: "text", text: after }] }];
}

const toolNames = (body: { tools?: Array<{ name: string }> } | undefined) => (body?.tools ?? []).map((t) => t.name);

describe("ask_user in the chat", () => {
  test("a menu: one pick, several picks, own words, a decline, and Ctrl-C while it waits", async () => {
    await using mock = startMockAnthropic({
      script: [
        ...askTurn("toolu_one", { question: "Which colour?\u202e", options: OPTIONS }, "Picked one."),
        ...askTurn("toolu_many", { question: "Which colours?", options: OPTIONS, multiple: true }, "Picked many."),
        ...askTurn("toolu_words", { question: "What should it be called?" }, "Named."),
        ...askTurn("toolu_no", { question: "Which colour now?", options: OPTIONS }, "Declined noted."),
        {
          steps: [
            { type: "tool_use", name: "ask_user", id: "toolu_stop", input: { question: "Stop me?", options: OPTIONS } },
          ],
        },
        { steps: [{ type: "text", text: "After the stop." }] },
      ],
    });
    using ws = workspace();
    const chat = new ChatPty([], { cwd: ws.root, env: chatEnv(mock, ws.home) });
    await chat.prompt();
    chat.type("ask me one");
    const menu = await chat.waitFor("[n] decline to answer");
    expect(menu).toContain("? Which colour?⟨U+202E⟩");
    expect(menu).toContain("[2] Green — the calm one");
    expect(menu).not.toContain("\u202e");
    await chat.answer("3");
    await chat.waitFor("→ Blue");
    await chat.waitFor("Picked one.");
    expect(lastToolResult(mock, 1)).toBe('The user chose: "Blue".');

    await chat.prompt();
    chat.type("ask me many");
    await chat.waitFor("numbers pick or unpick, Enter sends");
    await chat.answer("1");
    await chat.waitFor("picked: Red");
    chat.send("3");
    await chat.waitFor("picked: Red, Blue");
    chat.send("1");
    await chat.waitFor("picked: Blue");
    chat.send("2");
    await chat.waitFor("picked: Green, Blue");
    chat.send(KEYS.enter);
    await chat.waitFor("→ Green, Blue");
    await chat.waitFor("Picked many.");
    expect(lastToolResult(mock, 3)).toBe('The user chose: "Green", "Blue".');

    await chat.prompt();
    chat.type("ask me for words");
    await chat.waitFor("[t] answer");
    await chat.answer("t");
    await chat.waitFor("Your answer:");
    chat.type("Kestrel 2");
    await chat.waitFor("→ “Kestrel 2”");
    await chat.waitFor("Named.");
    expect(lastToolResult(mock, 5)).toBe("The user wrote:\nKestrel 2");

    await chat.prompt();
    chat.type("ask me again");
    await chat.waitFor("[n] decline to answer");
    await chat.answer("n");
    await chat.waitFor("→ Declined.");
    await chat.waitFor("Declined noted.");
    expect(lastToolResult(mock, 7)).toBe(DECLINED_OUTPUT);

    await chat.prompt();
    chat.type("ask and be stopped");
    await chat.waitFor("? Stop me?");
    await chat.waitFor("[n] decline to answer");
    await chat.afterGrace();
    chat.send(KEYS.ctrlC);
    await chat.waitFor("Stopped; not answered.");
    await chat.prompt();
    chat.type("go on");
    await chat.waitFor("After the stop.");
    expect(lastToolResult(mock, 9)).toBe("Cancelled by the user.");
    await chat.prompt();
    chat.send(KEYS.ctrlD);
    expect(await chat.exit()).toBe(0);
  }, 60_000);

  test("over a pipe: a line of numbers picks several, t then a line answers in words, junk asks again", async () => {
    await using mock = startMockAnthropic({
      script: [
        ...askTurn("toolu_many", { question: "Which colours?", options: OPTIONS, multiple: true }, "Picked many."),
        ...askTurn("toolu_words", { question: "Which name?", options: OPTIONS, allow_text: true }, "Named."),
      ],
    });
    using ws = workspace();
    const stdin = "ask many\n9\n1 3\nask words\nt\nMy Own Name\n/exit\n";
    const run = await runPipedIn([], { cwd: ws.root, env: chatEnv(mock, ws.home), stdin });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("(the numbers on one line, then Enter)");
    expect(lastToolResult(mock, 1)).toBe('The user chose: "Red", "Blue".');
    // The case is kept: the words are the user's, not a key.
    expect(lastToolResult(mock, 3)).toBe("The user wrote:\nMy Own Name");
  }, 60_000);

  test("plan mode may ask; `garuda run` does not offer the tool", async () => {
    await using mock = startMockAnthropic({
      script: [
        ...askTurn("toolu_plan", { question: "Which colour?", options: OPTIONS }, "Planned."),
        { steps: [{ type: "text", text: "Ran." }] },
      ],
    });
    using ws = workspace();
    const chat = new ChatPty(["--plan"], { cwd: ws.root, env: chatEnv(mock, ws.home) });
    await chat.waitFor("plan mode");
    await chat.prompt();
    chat.type("plan with me");
    await chat.waitFor("[n] decline to answer");
    await chat.answer("1");
    await chat.waitFor("Planned.");
    expect(lastToolResult(mock, 1)).toBe('The user chose: "Red".');
    await chat.prompt();
    chat.send(KEYS.ctrlD);
    expect(await chat.exit()).toBe(0);
    expect(toolNames(mock.requests[0]?.body)).toContain("ask_user");

    const run = await runPipedIn(["run", "just answer"], { cwd: ws.root, env: chatEnv(mock, ws.home) });
    expect(run.code).toBe(0);
    const headless = toolNames(mock.requests[2]?.body);
    expect(headless).toContain("read_file");
    expect(headless).not.toContain("ask_user");
  }, 60_000);
});
