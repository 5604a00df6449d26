// The editor's controls over ACP, in one process (the SDK's client, Garuda's server, the real
// prepareRuntime with FakeModelClients): the model and effort pickers (config options and
// session/set_config_option), the mode as a config option in step with session modes, the
// context and cost meter (usage_update), the built-in commands, the plan, Zed's terminal output
// extension with a real sandboxed command, and notices the editor's way.
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { writeCredentials } from "../../src/config/credentials.ts";
import { garudaPaths } from "../../src/config/paths.ts";
import { fake, FakeModelClient } from "../../src/model/fake.ts";
import { readSession } from "../../src/store/sessionFile.ts";
import { messageText, ofKind, rejection, select, startHarness } from "../support/acpHarness.ts";

type ConfigOption = acp.SessionConfigOption;

const option = (options: readonly ConfigOption[] | null | undefined, id: string) => options?.find((o) => o.id === id);
const values = (o: ConfigOption | undefined) =>
  o && o.type === "select" ? (o.options as acp.SessionConfigSelectOption[]).map((v) => v.value) : [];

function setOption(h: ReturnType<typeof startHarness>, sessionId: string, configId: string, value: string) {
  return h.agent.request(acp.methods.agent.session.setConfigOption, { sessionId, configId, value });
}

/** A models.json with a keyless local model, a provider without a key, and the built-in Claude models. */
function writeModels(home: string): void {
  writeFileSync(
    garudaPaths(home).models,
    JSON.stringify({
      default: "claude-sonnet-5",
      models: { "ollama/tiny": { contextWindow: 32_000, maxTokens: 4_000 }, "openrouter/deepseek/r9": {} },
    }),
  );
}

const userSaid = (model: FakeModelClient) => JSON.stringify(model.lastRequest.messages);

describe("the model picker", () => {
  test(
    "session/new offers the models this user can use now, with the session's model " + "as the current value",
    async () => {
      await using h = startHarness();
      writeModels(h.home);
      writeFileSync(
        garudaPaths(h.home).policy,
        JSON.stringify({ allowedModels: ["claude-sonnet-5", "claude-haiku-*", "ollama/*", "openrouter/*"] }),
      );
      await h.initialize();
      const session = await h.newSession();
      const model = option(session.configOptions, "model");
      expect(model).toMatchObject({
        id: "model",
        name: "Model",
        category: "model",
        type: "select",
        currentValue: "claude-sonnet-5",
      });
      // Claude Opus is not allowed by the policy; OpenRouter has no key here.
      expect(values(model)).toEqual(["claude-sonnet-5", "claude-haiku-4-5", "ollama/tiny"]);
      const described = (model?.type === "select" ? (model.options as acp.SessionConfigSelectOption[]) : []).find(
        (o) => o.value === "claude-sonnet-5",
      );
      expect(described?.description).toContain("1M context · $2/$10 per MTok");
    },
  );

  test(
    "set_config_option switches the model from the next request; the conversation " +
      "and the session file go on; the answer is the whole set",
    async () => {
      const sonnet = new FakeModelClient([fake.text("Sonnet here.")]);
      const haiku = new FakeModelClient([fake.text("Haiku here.")]);
      await using h = startHarness({ models: [sonnet, haiku] });
      await h.initialize();
      const { sessionId } = await h.newSession();
      await h.prompt(sessionId, "remember the word pelican");
      const answer = await setOption(h, sessionId, "model", "claude-haiku-4-5");
      expect(option(answer.configOptions, "model")?.currentValue).toBe("claude-haiku-4-5");
      expect(answer.configOptions.map((o) => o.id)).toEqual(["mode", "model", "effort"]);
      await h.prompt(sessionId, "which word?");
      expect(haiku.lastRequest.model).toBe("claude-haiku-4-5");
      expect(userSaid(haiku)).toContain("remember the word pelican");
      expect(userSaid(haiku)).toContain("Sonnet here.");
      expect(sonnet.requests).toHaveLength(1);
      // The editor hears of the new window.
      const usage = ofKind(h.updatesOf(sessionId), "usage_update");
      expect(usage.at(-1)?.size).toBe(200_000);
    },
  );

  test("an unknown, forbidden or keyless model is a clear error that changes nothing", async () => {
    await using h = startHarness();
    writeModels(h.home);
    writeFileSync(
      garudaPaths(h.home).policy,
      JSON.stringify({ allowedModels: ["claude-sonnet-5", "ollama/*", "openrouter/*"] }),
    );
    await h.initialize();
    const { sessionId } = await h.newSession();
    const unknown = await rejection(setOption(h, sessionId, "model", "claude-nonexistent-9"));
    expect(unknown.code).toBe(-32602);
    expect(unknown.message).toContain('There is no model "claude-nonexistent-9"');
    expect(unknown.message).toContain("The models you can use: claude-sonnet-5, ollama/tiny.");
    const forbidden = await rejection(setOption(h, sessionId, "model", "claude-opus-5"));
    expect(forbidden.message).toContain("claude-opus-5 cannot be used: the team policy");
    const keyless = await rejection(setOption(h, sessionId, "model", "openrouter/deepseek/r9"));
    expect(keyless.message).toContain("Garuda has no key for it (OPENROUTER_API_KEY)");
    const notAValue = await rejection(
      h.agent.request(acp.methods.agent.session.setConfigOption, {
        sessionId,
        configId: "model",
        type: "boolean",
        value: true,
      }),
    );
    expect(notAValue.message).toContain('"model" takes one of its values (a string), not true.');
    const unknownOption = await rejection(setOption(h, sessionId, "speed", "fast"));
    expect(unknownOption.message).toContain('There is no option "speed". The options are: mode, model, effort.');
    const response = await h.agent.request(acp.methods.agent.session.setConfigOption, {
      sessionId,
      configId: "effort",
      value: "max",
    });
    expect(option(response.configOptions, "model")?.currentValue).toBe("claude-sonnet-5");
    expect(ofKind(h.updatesOf(sessionId), "config_option_update")).toEqual([]);
  });
});

describe("the effort picker", () => {
  test(
    "a thought_level option for a model with levels, mapped to the provider's " +
      "parameter, kept in the session file; absent for a model without",
    async () => {
      const sonnet = new FakeModelClient([fake.text("Thought hard.")]);
      const tiny = new FakeModelClient([fake.text("Tiny.")]);
      await using h = startHarness({ models: [sonnet, tiny] });
      writeModels(h.home);
      await h.initialize();
      const session = await h.newSession();
      const effort = option(session.configOptions, "effort");
      expect(effort).toMatchObject({ id: "effort", category: "thought_level", type: "select", currentValue: "high" });
      expect(values(effort)).toEqual(["low", "medium", "high", "max"]);
      const answer = await setOption(h, session.sessionId, "effort", "max");
      expect(option(answer.configOptions, "effort")?.currentValue).toBe("max");
      const wrong = await rejection(setOption(h, session.sessionId, "effort", "ludicrous"));
      expect(wrong.message).toContain(
        'There is no effort level "ludicrous" for claude-sonnet-5. Its levels are: low, medium, high, max.',
      );
      await h.prompt(session.sessionId, "think");
      expect(sonnet.lastRequest.effort).toBe("max");
      expect(sonnet.lastRequest.thinking).toBe("adaptive");

      const switched = await setOption(h, session.sessionId, "model", "ollama/tiny");
      expect(option(switched.configOptions, "effort")).toBeUndefined();
      await h.prompt(session.sessionId, "small");
      expect(tiny.lastRequest.effort).toBeUndefined();

      const sessionDir = garudaPaths(h.home).sessions;
      const { findSessionFile } = await import("../../src/store/sessionCatalog.ts");
      const file = findSessionFile(sessionDir, session.sessionId) as string;
      const records = readSession(file).records.filter((r) => r.type === "effort" || r.type === "model");
      expect(
        records.map((r) => (r.type === "effort" ? `effort ${r.effort}` : r.type === "model" ? `model ${r.model}` : "")),
      ).toEqual(["effort max", "model ollama/tiny"]);
    },
  );
});

describe("the mode as a config option", () => {
  test(
    "set_config_option and set_mode change the same thing; the editor hears of each " +
      "from the other API, and of a /mode typed in the prompt",
    async () => {
      await using h = startHarness({ models: [new FakeModelClient()] });
      await h.initialize();
      const { sessionId, configOptions } = await h.newSession();
      expect(option(configOptions, "mode")).toMatchObject({ category: "mode", currentValue: "build" });
      expect(values(option(configOptions, "mode"))).toEqual(["build", "plan"]);

      const answer = await setOption(h, sessionId, "mode", "plan");
      expect(option(answer.configOptions, "mode")?.currentValue).toBe("plan");
      expect(await h.waitFor((u) => u.sessionUpdate === "current_mode_update")).toEqual({
        sessionUpdate: "current_mode_update",
        currentModeId: "plan",
      });
      expect(ofKind(h.updatesOf(sessionId), "config_option_update")).toEqual([]);

      await h.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: "build" });
      const update = await h.waitFor((u) => u.sessionUpdate === "config_option_update");
      expect(
        update.sessionUpdate === "config_option_update" && option(update.configOptions, "mode")?.currentValue,
      ).toBe("build");
      expect(ofKind(h.updatesOf(sessionId), "current_mode_update")).toHaveLength(1);

      expect((await h.prompt(sessionId, "/mode plan")).stopReason).toBe("end_turn");
      expect(messageText(h.updatesOf(sessionId))).toContain("Mode: plan. It applies from the next turn.");
      expect(ofKind(h.updatesOf(sessionId), "current_mode_update").map((u) => u.currentModeId)).toEqual([
        "plan",
        "plan",
      ]);
      const configs = ofKind(h.updatesOf(sessionId), "config_option_update");
      expect(option(configs.at(-1)?.configOptions, "mode")?.currentValue).toBe("plan");

      const refused = await rejection(setOption(h, sessionId, "mode", "yolo"));
      expect(refused.message).toContain('There is no mode "yolo"');
    },
  );
});

describe("the context and cost meter", () => {
  test(
    "a usage_update after every model response: tokens in the context, the window, " +
      "the session's cost; /compact lowers it",
    async () => {
      // Reported sizes include the system prompt and the tools, as a provider's do.
      const model = new FakeModelClient([
        fake.toolCall("read_file", { path: "notes.txt" }, { usage: { inputTokens: 20_000, outputTokens: 100 } }),
        fake.text("It says hello.", { usage: { inputTokens: 23_000, outputTokens: 40, cacheReadTokens: 1_000 } }),
        fake.text("Second answer.", { usage: { inputTokens: 24_000, outputTokens: 30 } }),
        fake.text("Third answer.", { usage: { inputTokens: 25_000, outputTokens: 30 } }),
        fake.text("SUMMARY: the user asked about notes.txt."),
      ]);
      await using h = startHarness({
        models: [model],
        files: { "notes.txt": `hello\n${"filler line\n".repeat(300)}` },
      });
      await h.initialize();
      const { sessionId } = await h.newSession();
      await h.prompt(sessionId, "what does notes.txt say?");
      const usage = ofKind(h.updatesOf(sessionId), "usage_update");
      // One at session/new, then one per response.
      expect(usage).toHaveLength(3);
      expect(usage[1]).toEqual({
        sessionUpdate: "usage_update",
        used: 20_100,
        size: 1_000_000,
        cost: { amount: (20_000 * 2 + 100 * 10) / 1e6, currency: "USD" },
      });
      expect(usage[2]?.used).toBe(24_040);
      expect(usage[2]?.cost?.amount).toBeCloseTo(
        (20_000 * 2 + 100 * 10 + 23_000 * 2 + 40 * 10 + 1_000 * 0.2) / 1e6,
        12,
      );
      // The usage goes out before the step's other updates of the next step: after the response's text.
      const kinds = h.updatesOf(sessionId).map((u) => u.sessionUpdate);
      expect(kinds.lastIndexOf("usage_update")).toBeGreaterThan(kinds.lastIndexOf("agent_message_chunk"));

      await h.prompt(sessionId, "again");
      await h.prompt(sessionId, "and again");
      const before = ofKind(h.updatesOf(sessionId), "usage_update").at(-1)?.used ?? 0;
      expect((await h.prompt(sessionId, "/compact")).stopReason).toBe("end_turn");
      expect(messageText(h.updatesOf(sessionId))).toMatch(
        /Garuda: the conversation was compacted to make room \([\d,K]+ → [\d,K]+ tokens\)\./,
      );
      const after = ofKind(h.updatesOf(sessionId), "usage_update").at(-1);
      expect(after?.used).toBeLessThan(before);
      expect(model.remaining).toBe(0);
    },
  );

  test("no cost for a model without a price", async () => {
    await using h = startHarness({
      models: [new FakeModelClient([fake.text("hi", { usage: { inputTokens: 10, outputTokens: 2 } })])],
    });
    writeFileSync(
      garudaPaths(h.home).models,
      JSON.stringify({ default: "openrouter/x/paid", models: { "openrouter/x/paid": { contextWindow: 64_000 } } }),
    );
    writeCredentials(garudaPaths(h.home).credentials, { OPENROUTER_API_KEY: "sk-or-test-0000" });
    await h.initialize();
    const { sessionId } = await h.newSession();
    await h.prompt(sessionId, "hello");
    expect(ofKind(h.updatesOf(sessionId), "usage_update").at(-1)).toEqual({
      sessionUpdate: "usage_update",
      used: 12,
      size: 64_000,
    });
  });
});

describe("built-in commands over ACP", () => {
  test(
    "/undo restores the last turn's files and says which; /diff shows what changed; " +
      "/permissions the rules and this session's; none asks the model",
    async () => {
      const model = new FakeModelClient([
        fake.toolCall("read_file", { path: "a.txt" }),
        fake.toolCall("write_file", { path: "a.txt", content: "new text\n" }),
        fake.text("Written."),
      ]);
      await using h = startHarness({ models: [model], files: { "a.txt": "old text\n" } });
      h.answer = () => select("session");
      await h.initialize();
      const { sessionId } = await h.newSession();
      await h.prompt(sessionId, "change a.txt");
      expect(readFileSync(join(h.root, "a.txt"), "utf8")).toBe("new text\n");
      const requests = model.requests.length;

      await h.prompt(sessionId, "/diff");
      expect(messageText(h.updatesOf(sessionId))).toContain("```diff\n");
      expect(messageText(h.updatesOf(sessionId))).toContain("+new text");

      await h.prompt(sessionId, "/permissions");
      const permissions = messageText(h.updatesOf(sessionId));
      expect(permissions).toContain("**Rules in force**");
      expect(permissions).toContain("**This session's rules**");
      expect(permissions).toMatch(/1\. `write_file[^`]*`/);

      await h.prompt(sessionId, "/undo");
      expect(messageText(h.updatesOf(sessionId))).toContain("Restored `a.txt`.");
      expect(readFileSync(join(h.root, "a.txt"), "utf8")).toBe("old text\n");
      expect(model.requests).toHaveLength(requests);
    },
  );

  test("/model lists and switches; /compact with nothing to compact says so", async () => {
    const sonnet = new FakeModelClient([]);
    await using h = startHarness({ models: [sonnet, new FakeModelClient()] });
    await h.initialize();
    const { sessionId } = await h.newSession();
    await h.prompt(sessionId, "/model");
    expect(messageText(h.updatesOf(sessionId))).toContain("Model: `claude-sonnet-5`, effort high.");
    await h.prompt(sessionId, "/model haiku");
    expect(messageText(h.updatesOf(sessionId))).toContain(
      "Model: `claude-haiku-4-5`. The conversation goes on with it from the next request.",
    );
    const config = await h.waitFor((u) => u.sessionUpdate === "config_option_update");
    expect(config.sessionUpdate === "config_option_update" && option(config.configOptions, "model")?.currentValue).toBe(
      "claude-haiku-4-5",
    );
    await h.prompt(sessionId, "/compact");
    expect(messageText(h.updatesOf(sessionId))).toContain("Nothing to compact yet.");
    expect(sonnet.requests).toHaveLength(0);
  });
});

describe("the plan", () => {
  test("the todo tool's list goes out as plan updates, the whole plan each time; the tool call stays", async () => {
    const model = new FakeModelClient([
      fake.toolCall(
        "todo",
        {
          items: [
            { content: "Read the parser", status: "in_progress" },
            { content: "Fix the bug\u202e", status: "pending" },
          ],
        },
        { id: "toolu_plan1" },
      ),
      fake.toolCall(
        "todo",
        {
          items: [
            { content: "Read the parser", status: "completed" },
            { content: "Fix the bug\u202e", status: "in_progress" },
          ],
        },
        { id: "toolu_plan2" },
      ),
      fake.text("Planned."),
    ]);
    await using h = startHarness({ models: [model] });
    await h.initialize();
    const { sessionId } = await h.newSession();
    await h.prompt(sessionId, "plan it");
    const plans = ofKind(h.updatesOf(sessionId), "plan");
    expect(plans.map((p) => p.entries)).toEqual([
      [
        { content: "Read the parser", priority: "medium", status: "in_progress" },
        { content: "Fix the bug⟨U+202E⟩", priority: "medium", status: "pending" },
      ],
      [
        { content: "Read the parser", priority: "medium", status: "completed" },
        { content: "Fix the bug⟨U+202E⟩", priority: "medium", status: "in_progress" },
      ],
    ]);
    expect(ofKind(h.updatesOf(sessionId), "tool_call").map((u) => [u.toolCallId, u.kind, u.title])).toEqual([
      ["toolu_plan1", "think", "Update the plan"],
      ["toolu_plan2", "think", "Update the plan"],
    ]);
  });
});

describe("live terminal output (Zed's extension)", () => {
  const printing =
    "for i in $(seq 1 40); do printf 'line %s \\033[31mred\\033[0m \\342\\200\\256x\\n' $i; sleep 0.02; done; exit 3";

  test("with _meta.terminal_output a sandboxed command is a terminal: info, output " +
    "streamed in batches (nothing lost, escapes out, hidden characters shown), then " +
    "exit", async () => {
    const model = new FakeModelClient([
      fake.toolCall("bash", { command: printing }, { id: "toolu_term" }),
      fake.text("It printed."),
    ]);
    await using h = startHarness({ models: [model] });
    await h.initialize({ _meta: { terminal_output: true } });
    const { sessionId } = await h.newSession();
    const started = performance.now();
    await h.prompt(sessionId, "print");
    const elapsed = performance.now() - started;
    const updates = h.updatesOf(sessionId);
    const call = ofKind(updates, "tool_call").find((u) => u.toolCallId === "toolu_term");
    expect(call?.content).toEqual([{ type: "terminal", terminalId: "toolu_term" }]);
    expect(call?._meta).toEqual({
      terminal_info: { terminal_id: "toolu_term", cwd: expect.stringContaining("garuda-acp-root-") },
    });

    const mine = ofKind(updates, "tool_call_update").filter((u) => u.toolCallId === "toolu_term");
    const outputs = mine.filter((u) => u._meta?.terminal_output);
    const text = outputs.map((u) => (u._meta?.terminal_output as { data: string }).data).join("");
    const expected = Array.from({ length: 40 }, (_, i) => `line ${i + 1} red ⟨U+202E⟩x\n`).join("");
    expect(text).toBe(expected);
    for (const u of outputs)
      expect((u._meta?.terminal_output as { terminal_id: string }).terminal_id).toBe("toolu_term");
    // Batched: at most one update per 50 ms (the first at once), so far fewer than the 40 lines.
    expect(outputs.length).toBeLessThanOrEqual(Math.ceil(elapsed / 50) + 2);
    expect(outputs.length).toBeGreaterThan(1);
    // No progress text replaces the terminal while it runs.
    expect(mine.filter((u) => u.content?.some((c) => c.type === "content"))).toEqual([]);
    const last = mine.at(-1);
    expect(last?.status).toBe("failed");
    expect(last?._meta).toEqual({ terminal_exit: { terminal_id: "toolu_term", exit_code: 3, signal: null } });
    expect(last?.content).toEqual([{ type: "terminal", terminalId: "toolu_term" }]);
    // The model still reads the whole result.
    expect(JSON.stringify(model.lastRequest.messages)).toContain("Exit code: 3");
  }, 30_000);

  test("without the capability: today's updates, no terminal and no _meta", async () => {
    const model = new FakeModelClient([
      fake.toolCall("bash", { command: "echo plain" }, { id: "toolu_plain" }),
      fake.text("ok"),
    ]);
    await using h = startHarness({ models: [model] });
    await h.initialize({});
    const { sessionId } = await h.newSession();
    await h.prompt(sessionId, "print");
    const updates = h
      .updatesOf(sessionId)
      .filter(
        (u) =>
          (u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update") && u.toolCallId === "toolu_plain",
      );
    expect(updates.every((u) => u._meta === undefined || u._meta === null)).toBe(true);
    expect(JSON.stringify(updates)).not.toContain('"terminal"');
    expect(JSON.stringify(updates.at(-1))).toContain("plain");
  });

  test("a denied command closes its terminal and shows why", async () => {
    const model = new FakeModelClient([
      fake.toolCall("bash", { command: "echo out", outside_sandbox: true }, { id: "toolu_denied" }),
      fake.text("ok"),
    ]);
    await using h = startHarness({ models: [model] });
    h.answer = () => select("deny");
    await h.initialize({ _meta: { terminal_output: true } });
    const { sessionId } = await h.newSession();
    await h.prompt(sessionId, "run outside");
    const last = ofKind(h.updatesOf(sessionId), "tool_call_update")
      .filter((u) => u.toolCallId === "toolu_denied")
      .at(-1);
    expect(last?.status).toBe("failed");
    expect(last?._meta).toEqual({ terminal_exit: { terminal_id: "toolu_denied", exit_code: null, signal: null } });
    expect(JSON.stringify(last?.content)).toContain("Permission denied");
  });
});

describe("notices the editor's way", () => {
  test("with session.notices Garuda's lines are notice updates; without, Garuda: lines", async () => {
    for (const notices of [true, false]) {
      await using h = startHarness({ models: [new FakeModelClient()] });
      await h.initialize(notices ? { session: { notices: {} } } : {});
      const { sessionId } = await h.newSession();
      await h.prompt(sessionId, "/nosuch");
      await h.prompt(sessionId, "   ");
      const updates = h.updatesOf(sessionId);
      if (notices) {
        expect(ofKind(updates, "notice")).toEqual([
          {
            sessionUpdate: "notice",
            severity: "info",
            title: "/nosuch is not a command of this project. This project has no custom commands or skills.",
          },
          {
            sessionUpdate: "notice",
            severity: "info",
            title: "The prompt was empty, so nothing was sent to the model.",
          },
        ]);
        expect(messageText(updates)).not.toContain("Garuda:");
      } else {
        expect(ofKind(updates, "notice")).toEqual([]);
        expect(messageText(updates)).toContain("Garuda: /nosuch is not a command of this project.");
      }
    }
  });
});
