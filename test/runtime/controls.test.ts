// The session's controls in the core (Runtime.controls): a model switch keeps the conversation
// and the session file (any number of switches), refuses an unknown, keyless or forbidden model
// with the usable ones, compacts first for a smaller window or says why it cannot; effort levels
// go into the requests and the session file and come back on resume; usage after every response
// (used, window, cost) and after compaction; the plan as plan events; command output as
// tool_output; every change outside a turn told to watchers.
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { writeCredentials } from "../../src/config/credentials.ts";
import { listModelChoices } from "../../src/config/modelChoices.ts";
import { garudaPaths } from "../../src/config/paths.ts";
import { ProviderKeys } from "../../src/config/providerKeys.ts";
import type { ModelInfo } from "../../src/model/catalog.ts";
import { fake, FakeModelClient } from "../../src/model/fake.ts";
import { emptyTeamPolicy } from "../../src/permission/teamPolicy.ts";
import type { ControlEvent } from "../../src/core-types/events.ts";
import { ControlError } from "../../src/runtime/modelSwitch.ts";
import { readSession } from "../../src/store/sessionFile.ts";
import { PlanState, todoTool } from "../../src/tools/todo.ts";
import type { Tool } from "../../src/tools/types.ts";
import { z } from "zod";
import { ofType, readTool, testRuntime, turn } from "../support/runtimeHelpers.ts";
import { tempDir } from "../support/tempDir.ts";

/** A home whose models.json lists a small local model; an Anthropic key; the catalog's Claude models. */
function homeWithModels(home: string, policy = emptyTeamPolicy()) {
  const paths = garudaPaths(home);
  mkdirSync(paths.dir, { recursive: true });
  writeFileSync(
    paths.models,
    JSON.stringify({
      default: "claude-sonnet-5",
      models: { "ollama/tiny": { contextWindow: 8_000, maxTokens: 2_000 } },
    }),
  );
  writeCredentials(paths.credentials, { ANTHROPIC_API_KEY: "sk-ant-test-0000" });
  const keys = new ProviderKeys();
  const choices = () => listModelChoices({ paths, env: {}, keys }, policy);
  const clients = new Map<string, FakeModelClient>();
  const clientFor = (spec: string) => {
    let client = clients.get(spec);
    if (!client) {
      client = new FakeModelClient();
      clients.set(spec, client);
    }
    return client;
  };
  const modelFor = async (spec: string) => {
    const info = choices().resolve(spec);
    if (!info) throw new Error(`no model ${spec}`);
    return { client: clientFor(spec), info };
  };
  const info = (spec: string) => choices().resolve(spec) as ModelInfo;
  return { choices, modelFor, clientFor, info };
}

describe("model switch", () => {
  test(
    "any number of switches keep the conversation and the one session file; the " +
      "next request goes to the new model",
    async () => {
      using home = tempDir("garuda-controls-home-");
      const models = homeWithModels(home.path);
      const sonnet = models.clientFor("claude-sonnet-5");
      await using t = testRuntime({
        home: home.path,
        client: sonnet,
        info: models.info("claude-sonnet-5"),
        modelChoices: models.choices,
        modelFor: models.modelFor,
      });
      sonnet.push(fake.text("one"));
      await turn(t.runtime, "first");
      const file = t.runtime.session?.file as string;

      await t.runtime.controls.setModel("claude-haiku-4-5");
      await t.runtime.controls.setModel("opus"); // a family name: the newest of it
      await t.runtime.controls.setModel("claude-haiku-4-5");
      expect(t.runtime.model.spec).toBe("claude-haiku-4-5");
      const haiku = models.clientFor("claude-haiku-4-5");
      haiku.push(fake.text("two"));
      await turn(t.runtime, "second");

      expect(haiku.lastRequest.model).toBe("claude-haiku-4-5");
      const said = haiku.lastRequest.messages.flatMap((m) =>
        m.content.flatMap((b) => (b.type === "text" ? [b.text] : [])),
      );
      expect(said.join(" ")).toContain("first");
      expect(said.join(" ")).toContain("one");
      expect(t.runtime.session?.file).toBe(file);
      const records = readSession(file).records;
      expect(records.filter((r) => r.type === "model").map((r) => r.type === "model" && r.model)).toEqual([
        "claude-haiku-4-5",
        "claude-opus-5",
        "claude-haiku-4-5",
      ]);
      expect(records.filter((r) => r.type === "start")).toHaveLength(1);
    },
  );

  test("a switch before the first prompt is written right after the start record", async () => {
    using home = tempDir("garuda-controls-home-");
    const models = homeWithModels(home.path);
    await using t = testRuntime({
      home: home.path,
      client: models.clientFor("claude-sonnet-5"),
      info: models.info("claude-sonnet-5"),
      modelChoices: models.choices,
      modelFor: models.modelFor,
    });
    await t.runtime.controls.setModel("claude-haiku-4-5");
    models.clientFor("claude-haiku-4-5").push(fake.text("hi"));
    await turn(t.runtime, "hello");
    const types = readSession(t.runtime.session?.file as string).records.map((r) => r.type);
    expect(types.slice(0, 3)).toEqual(["start", "model", "user"]);
  });

  test(
    "an unknown name, a model without a key and one the team policy forbids are " +
      "refused with the usable ones; nothing changes",
    async () => {
      using home = tempDir("garuda-controls-home-");
      const policy = emptyTeamPolicy();
      policy.allowedModels = {
        models: ["claude-sonnet-5", "claude-haiku-*", "ollama/*"],
        origin: { source: "user-policy", file: "/home/me/.garuda/policy.json" },
      } as typeof policy.allowedModels;
      const models = homeWithModels(home.path, policy);
      writeFileSync(
        garudaPaths(home.path).models,
        JSON.stringify({ models: { "ollama/tiny": {}, "openrouter/deepseek/r9": {} } }),
      );
      await using t = testRuntime({
        home: home.path,
        client: models.clientFor("claude-sonnet-5"),
        info: models.info("claude-sonnet-5"),
        modelChoices: models.choices,
        modelFor: models.modelFor,
      });
      const refused = async (name: string) => {
        const error = await t.runtime.controls.setModel(name).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(ControlError);
        return (error as Error).message;
      };
      expect(await refused("claude-nonexistent-9")).toContain('There is no model "claude-nonexistent-9"');
      expect(await refused("claude-nonexistent-9")).toContain("claude-sonnet-5, claude-haiku-4-5, ollama/tiny");
      expect(await refused("claude-opus-5")).toContain(
        "the team policy (/home/me/.garuda/policy.json) does not allow it",
      );
      policy.allowedModels = null;
      expect(await refused("openrouter/deepseek/r9")).toContain("Garuda has no key for it (OPENROUTER_API_KEY)");
      expect(t.runtime.model.spec).toBe("claude-sonnet-5");
      expect(t.runtime.controls.models().map((m) => m.spec)).toEqual(
        expect.arrayContaining(["claude-sonnet-5", "claude-opus-5", "ollama/tiny"]),
      );
      expect(t.runtime.controls.models().map((m) => m.spec)).not.toContain("openrouter/deepseek/r9");
    },
  );

  test(
    "a smaller window: the conversation is compacted first, with the model in use; " +
      "when it still does not fit, the switch is refused",
    async () => {
      using home = tempDir("garuda-controls-home-");
      const models = homeWithModels(home.path);
      const big: Tool<{ n: number }> = {
        name: "big",
        description: "Returns a lot.",
        input: z.object({ n: z.number() }),
        readOnly: true,
        plan: (input) => ({
          input,
          info: { title: "big", kind: "read", locations: [] },
          permission: { tool: "big", readOnly: true, target: { kind: "input" }, preview: "big" },
        }),
        run: async () => ({ output: "x".repeat(12_000) }),
      };
      const sonnet = models.clientFor("claude-sonnet-5");
      await using t = testRuntime({
        home: home.path,
        tools: [big],
        client: sonnet,
        info: models.info("claude-sonnet-5"),
        modelChoices: models.choices,
        modelFor: models.modelFor,
      });
      for (let i = 0; i < 6; i++)
        sonnet.push(fake.toolCall("big", { n: i }, { usage: { inputTokens: 3_000 + i * 3_000, outputTokens: 10 } }));
      sonnet.push(fake.text("done", { usage: { inputTokens: 21_000, outputTokens: 10 } }));
      await turn(t.runtime, "read a lot");
      const before = t.runtime.controls.usage.used;
      expect(before).toBeGreaterThan(8_000);

      // ollama/tiny has 8,000 tokens: stage 1 cuts the old results, the summary (by Sonnet) the rest.
      sonnet.push(fake.text("SUMMARY: read a lot of x."));
      const watched: ControlEvent[] = [];
      t.runtime.controls.watch((event) => watched.push(event));
      const switched = await t.runtime.controls.setModel("ollama/tiny");
      expect(switched?.compaction?.afterTokens).toBeLessThan(before);
      expect(t.runtime.model.spec).toBe("ollama/tiny");
      expect(
        sonnet.lastRequest.messages
          .at(-1)
          ?.content.some((b) => b.type === "text" && b.text.startsWith("Summarize the conversation")),
      ).toBe(true);
      expect(watched.map((e) => e.type)).toEqual(["usage", "model", "effort", "usage"]);

      // Back on Sonnet, the conversation grows past what even a compaction brings under 8,000 tokens.
      await t.runtime.controls.setModel("claude-sonnet-5");
      const huge = "y".repeat(80_000);
      sonnet.push(fake.text(huge, { usage: { inputTokens: 30_000, outputTokens: 20_000 } }));
      await turn(t.runtime, "write a lot");
      sonnet.push(fake.text("SUMMARY: wrote y."));
      const error = await t.runtime.controls.setModel("ollama/tiny").catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ControlError);
      expect((error as Error).message).toContain(
        "more than fits in the 8,000-token window of ollama/tiny, so the model stays claude-sonnet-5",
      );
      expect(t.runtime.model.spec).toBe("claude-sonnet-5");
    },
  );

  test("a switch while a turn runs applies from the next model request of that turn", async () => {
    using home = tempDir("garuda-controls-home-");
    const models = homeWithModels(home.path);
    const sonnet = models.clientFor("claude-sonnet-5");
    let switching: Promise<unknown> | undefined;
    const tools = [readTool("pick", async () => ({ output: "picked" }))];
    await using t = testRuntime({
      home: home.path,
      tools,
      client: sonnet,
      info: models.info("claude-sonnet-5"),
      modelChoices: models.choices,
      modelFor: models.modelFor,
    });
    sonnet.push(() => {
      switching = t.runtime.controls.setModel("claude-haiku-4-5");
      return fake.toolCall("pick", { path: "x" });
    });
    models.clientFor("claude-haiku-4-5").push(fake.text("haiku answers"));
    const { events } = await turn(t.runtime, "go");
    await switching;
    expect(sonnet.requests).toHaveLength(1);
    expect(models.clientFor("claude-haiku-4-5").requests).toHaveLength(1);
    expect(ofType(events, "usage").at(-1)?.size).toBe(200_000);
  });
});

describe("effort", () => {
  test(
    "a level goes into the next request and the session file; a resumed session " +
      "goes on with it; a wrong level is refused",
    async () => {
      using home = tempDir("garuda-controls-home-");
      const models = homeWithModels(home.path);
      const sonnet = models.clientFor("claude-sonnet-5");
      await using t = testRuntime({
        home: home.path,
        client: sonnet,
        info: models.info("claude-sonnet-5"),
        modelChoices: models.choices,
        modelFor: models.modelFor,
      });
      expect(t.runtime.controls.effort).toBe("high");
      expect(t.runtime.controls.setEffort("turbo")).toBe(
        'There is no effort level "turbo" for claude-sonnet-5. Its levels are: low, medium, high, max.',
      );
      expect(t.runtime.controls.setEffort("low")).toBeUndefined();
      sonnet.push(fake.text("quick"));
      await turn(t.runtime, "hi");
      expect(sonnet.lastRequest.effort).toBe("low");
      expect(sonnet.lastRequest.thinking).toBe("adaptive");
      const file = t.runtime.session?.file as string;
      expect(readSession(file).records.filter((r) => r.type === "effort")).toEqual([
        expect.objectContaining({ type: "effort", effort: "low" }),
      ]);

      // Haiku 4.5 has no "low"… it has: off, low, medium, high. "max" is Sonnet's only.
      expect(t.runtime.controls.setEffort("max")).toBeUndefined();
      await t.runtime.controls.setModel("claude-haiku-4-5");
      expect(t.runtime.controls.effort).toBe("off");
      await t.runtime.controls.setModel("claude-sonnet-5");
      await t.runtime.close();

      const resumed = testRuntime({
        home: home.path,
        root: t.root,
        client: sonnet,
        info: models.info("claude-sonnet-5"),
        resume: file,
        modelChoices: models.choices,
        modelFor: models.modelFor,
      });
      try {
        expect(resumed.runtime.controls.effort).toBe("high");
        resumed.runtime.controls.setEffort("medium");
        sonnet.push(fake.text("again"));
        await turn(resumed.runtime, "more");
        await resumed.runtime.close();
        const again = testRuntime({
          home: home.path,
          root: t.root,
          client: sonnet,
          info: models.info("claude-sonnet-5"),
          resume: file,
          modelChoices: models.choices,
          modelFor: models.modelFor,
        });
        expect(again.runtime.controls.effort).toBe("medium");
        await again.runtime.close();
      } finally {
        await resumed.runtime.close();
      }
    },
  );

  test("a model without levels refuses any", async () => {
    await using t = testRuntime();
    expect(t.runtime.controls.effortLevels()).toBeUndefined();
    expect(t.runtime.controls.effort).toBeUndefined();
    expect(t.runtime.controls.setEffort("high")).toBe("claude-test has no effort levels.");
  });
});

describe("usage, plan and command output", () => {
  test(
    "a usage event after every model response: tokens in the context, the window, " +
      "the session's cost at the catalog's price",
    async () => {
      await using t = testRuntime({
        info: { contextWindow: 100_000, price: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 } },
        turns: [
          fake.toolCall("read", { path: "a" }, { usage: { inputTokens: 1_000, outputTokens: 100 } }),
          fake.text("ok", { usage: { inputTokens: 1_200, outputTokens: 50, cacheReadTokens: 1_000 } }),
        ],
        files: { a: "hello" },
      });
      const { events } = await turn(t.runtime, "read a");
      const usage = ofType(events, "usage");
      expect(usage).toHaveLength(2);
      expect(usage[0]).toEqual({ type: "usage", used: 1_100, size: 100_000, cost: (1_000 * 3 + 100 * 15) / 1e6 });
      expect(usage[1]?.used).toBe(2_250);
      expect(usage[1]?.cost).toBeCloseTo((1_000 * 3 + 100 * 15 + 1_200 * 3 + 50 * 15 + 1_000 * 0.3) / 1e6, 12);
      // step_end follows the usage of its response.
      const order = events.filter((e) => e.type === "usage" || e.type === "step_end").map((e) => e.type);
      expect(order).toEqual(["usage", "step_end", "usage", "step_end"]);
    },
  );

  test("no cost for a model without a price", async () => {
    await using t = testRuntime({ turns: [fake.text("ok", { usage: { inputTokens: 10, outputTokens: 5 } })] });
    const { events } = await turn(t.runtime, "hi");
    expect(ofType(events, "usage")[0]).toEqual({ type: "usage", used: 15, size: 200_000 });
  });

  test("the todo tool's plan goes out as plan events, the whole plan each time", async () => {
    const plan = new PlanState();
    await using t = testRuntime({
      tools: [todoTool(plan)],
      plan,
      turns: [
        fake.toolCall("todo", {
          items: [
            { content: "Read the code", status: "in_progress" },
            { content: "Fix it", status: "pending" },
          ],
        }),
        fake.toolCall("todo", {
          items: [
            { content: "Read the code", status: "completed" },
            { content: "Fix it", status: "in_progress" },
          ],
        }),
        fake.text("done"),
      ],
    });
    const { events } = await turn(t.runtime, "plan it");
    expect(ofType(events, "plan").map((e) => e.items)).toEqual([
      [
        { content: "Read the code", status: "in_progress" },
        { content: "Fix it", status: "pending" },
      ],
      [
        { content: "Read the code", status: "completed" },
        { content: "Fix it", status: "in_progress" },
      ],
    ]);
  });

  test("a tool's command output goes out whole as tool_output chunks; its exit with the result", async () => {
    const printer: Tool<{ n: number }> = {
      name: "printer",
      description: "Prints.",
      input: z.object({ n: z.number() }),
      readOnly: true,
      plan: (input) => ({
        input,
        info: { title: "print", kind: "execute", locations: [] },
        permission: { tool: "printer", readOnly: true, target: { kind: "input" }, preview: "print" },
      }),
      run: async ({ input }, ctx) => {
        for (let i = 0; i < input.n; i++) ctx.output?.(`line ${i}\n`);
        return { output: "printed", exit: { code: 3, signal: null } };
      },
    };
    await using t = testRuntime({
      tools: [printer],
      turns: [fake.toolCall("printer", { n: 5 }, { id: "toolu_p" }), fake.text("ok")],
    });
    const { events } = await turn(t.runtime, "print");
    expect(
      ofType(events, "tool_output")
        .map((e) => e.data)
        .join(""),
    ).toBe("line 0\nline 1\nline 2\nline 3\nline 4\n");
    expect(ofType(events, "tool_result")[0]?.exit).toEqual({ code: 3, signal: null });
  });

  test("watchers hear of mode changes; the turn's own events stay in the turn", async () => {
    await using t = testRuntime();
    const watched: ControlEvent[] = [];
    const stop = t.runtime.controls.watch((event) => watched.push(event));
    t.runtime.setMode("plan");
    t.runtime.setMode("plan");
    t.runtime.setMode("build");
    stop();
    t.runtime.setMode("plan");
    expect(watched).toEqual([
      { type: "mode", mode: "plan" },
      { type: "mode", mode: "build" },
    ]);
  });
});
