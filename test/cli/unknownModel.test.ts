// Issue 20.2: a model name Garuda does not know is refused with the names it knows, wherever it
// comes from (-m, GARUDA_MODEL, models.json's default) and in every front end (the chat,
// `garuda run`, `garuda acp`'s session/new); before, it was taken silently and failed at the first
// request. Names of providers whose models are not known ahead (an OpenAI-compatible server, an
// Anthropic-type gateway of models.json) and a Claude model listed in models.json still work.
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildCatalog, checkKnownModel } from "../../src/config/modelsFile.ts";
import { startMockAnthropic } from "../support/mockAnthropic.ts";
import { ChatPty, ENTRY, chatEnv, runPipedIn, workspace } from "../support/chatHarness.ts";

const KNOWN = "the models Garuda knows are claude-opus-5, claude-sonnet-5";

describe("an unknown model name", () => {
  test(
    "the catalog check: Anthropic's unlisted names refused; a server's names, a " +
      "gateway's and a models.json entry taken",
    () => {
      const catalog = buildCatalog("/home/u/.garuda/models.json", {
        providers: { gateway: { type: "anthropic", baseUrl: "https://llm.example.com", apiKeyEnv: "GATEWAY_KEY" } },
        models: { "claude-next-6": {} },
      });
      expect(() => checkKnownModel(catalog, "claude-nonexistent-9", "from --model")).toThrow(
        `There is no model "claude-nonexistent-9" (from --model): ${KNOWN}`,
      );
      expect(() => checkKnownModel(catalog, "anthropic/claude-sonet-5", "from GARUDA_MODEL")).toThrow(
        'be added to /home/u/.garuda/models.json under "models"',
      );
      // Negative controls: known names, families, a listed custom model, names known only to their servers.
      for (const name of [
        "claude-sonnet-5",
        "sonnet",
        "anthropic/claude-opus-5",
        "claude-next-6",
        "ollama/qwen3:8b",
        "openrouter/qwen/qwen3-coder",
        "gateway/house-model",
      ]) {
        expect(() => checkKnownModel(catalog, name, "from --model")).not.toThrow();
      }
    },
  );

  test("is refused by the chat (-m), `garuda run` (GARUDA_MODEL) and models.json's " +
    "default, with the known names; a models.json entry runs", async () => {
    await using mock = startMockAnthropic({
      script: [{ steps: [{ type: "text", text: "Hello from the new model." }] }],
    });
    using ws = workspace();
    const env = chatEnv(mock, ws.home);
    const chat = await runPipedIn(["-m", "claude-nonexistent-9"], { cwd: ws.root, env, stdin: "hi\n" });
    expect(chat.code).toBe(1);
    expect(chat.stderr).toContain(`There is no model "claude-nonexistent-9" (from --model): ${KNOWN}`);
    const run = await runPipedIn(["run", "hi"], { cwd: ws.root, env: { ...env, GARUDA_MODEL: "claude-sonet-5" } });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`There is no model "claude-sonet-5" (from GARUDA_MODEL): ${KNOWN}`);
    mkdirSync(join(ws.home, ".garuda"), { recursive: true, mode: 0o700 });
    writeFileSync(join(ws.home, ".garuda", "models.json"), JSON.stringify({ default: "nosuch-model" }));
    const { GARUDA_MODEL: _unset, ...noModel } = env;
    const fromDefault = await runPipedIn(["run", "hi"], { cwd: ws.root, env: noModel });
    expect(fromDefault.stderr).toContain(`There is no model "nosuch-model" (the default in models.json)`);
    expect(mock.requests).toHaveLength(0);

    // Listed in models.json, the same kind of name runs.
    writeFileSync(join(ws.home, ".garuda", "models.json"), JSON.stringify({ models: { "claude-next-6": {} } }));
    const listed = await runPipedIn(["run", "-m", "claude-next-6", "hi"], { cwd: ws.root, env });
    expect(listed.stdout).toContain("Hello from the new model.");
    expect(listed.code).toBe(0);
    expect(mock.requests[0]?.body?.model).toBe("claude-next-6");
  }, 60_000);

  test("/model at a terminal: the unknown name is refused with the known names, the " +
    "model stays and the conversation goes on", async () => {
    await using mock = startMockAnthropic({
      script: [
        { steps: [{ type: "text", text: "First answer." }] },
        { steps: [{ type: "text", text: "Second answer." }] },
      ],
    });
    using ws = workspace();
    const chat = new ChatPty([], { cwd: ws.root, env: chatEnv(mock, ws.home) });
    await chat.prompt();
    chat.type("one");
    await chat.waitFor("First answer.");
    await chat.prompt();
    chat.type("/model claude-nonexistent-9");
    await chat.waitFor("The model stays");
    expect(chat.text.replace(/\s+/g, " ")).toContain(`There is no model "claude-nonexistent-9"`);
    await chat.prompt();
    chat.type("two");
    await chat.waitFor("Second answer.");
    expect(mock.requests.map((request) => request.body?.model)).toEqual(["claude-sonnet-5", "claude-sonnet-5"]);
    // The second request carries the first exchange: the refusal did not start a new conversation.
    expect(JSON.stringify(mock.requests[1]?.body?.messages)).toContain("First answer.");
    await chat.prompt();
    chat.type("/exit");
    expect(await chat.exit()).toBe(0);
  }, 60_000);

  test("garuda acp: session/new fails with the message, and no request reaches the model", async () => {
    await using mock = startMockAnthropic({});
    using ws = workspace();
    const proc = Bun.spawn([process.execPath, ENTRY, "acp"], {
      cwd: ws.root,
      env: chatEnv(mock, ws.home, { GARUDA_MODEL: "claude-nonexistent-9" }),
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
    });
    const send = (message: object) => proc.stdin.write(`${JSON.stringify(message)}\n`);
    send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } });
    send({ jsonrpc: "2.0", id: 2, method: "session/new", params: { cwd: ws.root, mcpServers: [] } });
    await proc.stdin.flush();
    const reader = proc.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while (!text.includes('"id":2')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
    }
    proc.stdin.end();
    await proc.exited;
    const answer = text
      .split("\n")
      .map((line) => (line.trim() ? JSON.parse(line) : undefined))
      .find((message) => message?.id === 2);
    expect(answer?.result).toBeUndefined();
    expect(answer?.error?.message).toContain(`There is no model "claude-nonexistent-9" (from GARUDA_MODEL): ${KNOWN}`);
    expect(mock.requests).toHaveLength(0);
  }, 30_000);
});
