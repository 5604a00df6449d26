// The chat never freezes (issue 34.1, 34.2), in a real pseudo-terminal against the mock Anthropic
// server: a 10,000-line answer streamed as fast as the server sends it is drawn as it comes, Ctrl-C
// or Esc in the middle of it stops the turn within 200 ms, and SIGTERM ends the chat within 1 s
// with the terminal given back (bracketed paste off).
import { describe, expect, test } from "bun:test";
import { type MockAnthropic, startMockAnthropic } from "../support/mockAnthropic.ts";
import { ChatPty, chatEnv, KEYS, workspace } from "../support/chatHarness.ts";

const LINES = 10_000;
/** Numbered lines in paragraphs, a list and a code block: every kind of block grows long. */
const ANSWER = Array.from({ length: LINES }, (_, i) => {
  const n = String(i).padStart(5, "0");
  if (i % 2_500 === 2_000) return `\`\`\`ts\nconst line${n} = ${i};`;
  if (i % 2_500 === 2_400) return `const line${n} = ${i};\n\`\`\`\n`;
  if (i % 2_500 > 2_000 && i % 2_500 < 2_400) return `const line${n} = ${i};`;
  return i % 2_500 < 1_000 ? `Line-${n} of the **answer** goes on.` : `- item-${n} of the list`;
}).join("\n");

/**
 * The long answer, then a short one. `paced`: 1 ms between events (a thousand lines a second, faster
 * than a model streams) for the tests that stop it in the middle, so that on a loaded machine the
 * whole answer is not drawn before the test's key arrives (then there would be no turn to stop).
 */
function longAnswer(paced = false) {
  return startMockAnthropic({
    script: [
      { steps: [{ type: "text", text: ANSWER, fragments: LINES }], ...(paced ? { delayMs: 1 } : {}) },
      { steps: [{ type: "text", text: "Next." }] },
    ],
  });
}

/** The chat in a pseudo-terminal, asked for the long answer; returns once `line` of it is on the screen. */
async function askForIt(
  mock: MockAnthropic,
  ws: { root: string; home: string },
  line: string,
): Promise<{ chat: ChatPty; echoMs: number }> {
  const chat = new ChatPty([], { cwd: ws.root, env: chatEnv(mock, ws.home) });
  await chat.prompt();
  // How long a key takes to come back on this machine now, with nothing streaming: the chat's and
  // the machine's own pace, which a busy machine slows for every key alike.
  const from = chat.raw.length;
  const typed = performance.now();
  chat.send("W");
  const echoMs = (await rawAfter(chat, "W", from, 5_000)) - typed;
  chat.type("rite ten thousand lines");
  await rawAfter(chat, line, 0, 20_000);
  return { chat, echoMs };
}

/** Polls the raw output (not the screen text: re-reading a megabyte each time takes long) for `text` after `from`. */
async function rawAfter(chat: ChatPty, text: string, from: number, timeoutMs: number): Promise<number> {
  const start = performance.now();
  for (;;) {
    if (chat.raw.indexOf(text, from) >= 0) return performance.now();
    if (performance.now() - start > timeoutMs)
      throw new Error(`"${text}" did not appear in ${timeoutMs} ms. Screen:\n${chat.text.slice(-3_000)}`);
    await Bun.sleep(2);
  }
}

describe("a long answer streamed as fast as the server sends it", () => {
  for (const [name, key] of [
    ["Ctrl-C", KEYS.ctrlC],
    ["Esc", "\x1b"],
  ] as const) {
    test(`${name} in the middle of it stops the turn within 200 ms`, async () => {
      await using mock = longAnswer(true);
      using ws = workspace();
      const { chat, echoMs } = await askForIt(mock, ws, "Line-00300");
      const from = chat.raw.length;
      const sent = performance.now();
      chat.send(key);
      const stopped = await rawAfter(chat, "the turn was cancelled.", from, 5_000);
      const elapsed = stopped - sent;
      // It stopped in the middle: the last line never came.
      expect(chat.raw).not.toContain(`Line-0${LINES - 1}`);
      expect(chat.raw).not.toContain(`item-0${LINES - 1}`);
      console.log(`${name}: stopped ${elapsed.toFixed(0)} ms after the key (a key's echo: ${echoMs.toFixed(0)} ms)`);
      // Within 200 ms; on a machine so busy that a key's echo alone takes over 40 ms, within five
      // echoes. A chat that reads keys only once the answer is drawn takes seconds either way.
      expect(elapsed).toBeLessThan(Math.max(200, 5 * echoMs));
      await chat.waitFor("the turn was cancelled.");
      await chat.prompt();
      // The chat goes on: the next prompt is answered.
      chat.type("And now?");
      await chat.waitFor("Next.");
      chat.send(KEYS.ctrlD);
      expect(await chat.exit()).toBe(0);
    }, 60_000);
  }

  test("the whole answer is drawn, and an arrow key in it is not an Esc", async () => {
    await using mock = longAnswer();
    using ws = workspace();
    const { chat } = await askForIt(mock, ws, "Line-00100");
    // An arrow's sequence in two writes: the ESC alone first.
    chat.send("\x1b");
    await Bun.sleep(5);
    chat.send("[A");
    await rawAfter(chat, `item-0${LINES - 1}`, 0, 60_000);
    expect(chat.raw).not.toContain("the turn was cancelled.");
    await chat.waitFor(`item-0${LINES - 1}`);
    await chat.prompt();
    chat.send(KEYS.ctrlD);
    expect(await chat.exit()).toBe(0);
  }, 90_000);

  test("SIGTERM in the middle of it ends the chat within 1 s and gives the terminal back", async () => {
    await using mock = longAnswer(true);
    using ws = workspace();
    const { chat } = await askForIt(mock, ws, "Line-00300");
    const from = chat.raw.length;
    const sent = performance.now();
    chat.process.kill("SIGTERM");
    const code = await chat.exit(5_000);
    expect(performance.now() - sent).toBeLessThan(1_000);
    expect(code).toBe(143);
    // Bracketed paste is turned off again (raw mode goes with it, in input.close()).
    expect(chat.raw.slice(from)).toContain("\x1b[?2004l");
  }, 60_000);
});
