// Issue 20.6: the first run in a terminal. `garuda` with no model or key asks whether to run setup
// there and then; yes runs it (the real menus, the hidden key, the check against the mock) and
// the chat starts with the saved model; no ends as before (exit 1) with what to run. In a pipe
// nothing is asked (negative control). A real pseudo-terminal, a temporary HOME.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { garudaPaths } from "../../src/config/paths.ts";
import { startMockAnthropic } from "../support/mockAnthropic.ts";
import { ChatPty, KEYS, runPipedIn, workspace } from "../support/chatHarness.ts";
import { fakeKey } from "../support/setupHarness.ts";

const KEY = fakeKey("first");

/** The environment of someone who never set Garuda up: no key, no GARUDA_MODEL. */
const newcomer = (url: string, home: string) => ({
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  HOME: home,
  TERM: "xterm-256color",
  ANTHROPIC_BASE_URL: url,
});

describe("garuda's first run", () => {
  test("offers setup; y runs it and the chat starts with the model it saved", async () => {
    await using mock = startMockAnthropic({
      apiKey: KEY,
      script: [{ steps: [{ type: "text", text: "Hello, newcomer." }] }],
    });
    using ws = workspace();
    const chat = new ChatPty([], { cwd: ws.root, env: newcomer(mock.url, ws.home) });
    const offer = await chat.waitFor("[n] No");
    expect(offer).toContain("Garuda has no model.");
    expect(offer).toContain("Set it up now with `garuda setup`?");
    expect(offer).not.toContain("editor's sign-in");
    await chat.answer("y");
    await chat.waitFor("Choose a provider");
    chat.send(KEYS.enter);
    await chat.waitFor("Choose a model");
    chat.send("2");
    await chat.waitFor(/❯ 2\. claude-sonnet-5/);
    chat.send(KEYS.enter);
    await chat.waitFor("Key: ");
    chat.send(`${KEY}${KEYS.enter}`);
    await chat.waitFor("Garuda is set up.");
    await chat.waitFor("Garuda 0.1.0 · claude-sonnet-5 · build mode");
    await chat.prompt();
    chat.type("hi");
    await chat.waitFor("Hello, newcomer.");
    // The mock answers only requests that carry KEY: the chat uses the key setup saved.
    expect(JSON.parse(readFileSync(garudaPaths(ws.home).models, "utf8"))).toEqual({ default: "claude-sonnet-5" });
    await chat.prompt();
    chat.send(KEYS.ctrlD);
    expect(await chat.exit()).toBe(0);
  }, 60_000);

  test("n: nothing is set up, exit 1 with what to run; in a pipe nothing is asked", async () => {
    await using mock = startMockAnthropic({});
    using ws = workspace();
    const chat = new ChatPty([], { cwd: ws.root, env: newcomer(mock.url, ws.home) });
    await chat.waitFor("[n] No");
    await chat.answer("n");
    await chat.waitFor("Run `garuda setup` when you are ready.");
    expect(await chat.exit()).toBe(1);
    expect(mock.requests).toHaveLength(0);

    const piped = await runPipedIn([], { cwd: ws.root, env: newcomer(mock.url, ws.home), stdin: "y\n" });
    expect(piped.code).toBe(1);
    expect(piped.stderr).toContain("Garuda has no model. Run `garuda setup` in a terminal");
    expect(piped.stdout).not.toContain("Set it up now");
  }, 60_000);
});
