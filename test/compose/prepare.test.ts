import { describe, expect, test } from "bun:test";
import { chownSync, mkdirSync, readdirSync, realpathSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { writeCredentials } from "../../src/config/credentials.ts";
import { ConfigError, SetupRequiredError } from "../../src/errors/configError.ts";
import { garudaPaths } from "../../src/config/paths.ts";
import { ProviderKeys } from "../../src/config/providerKeys.ts";
import { FakeModelClient, fake } from "../../src/model/fake.ts";
import type { AgentEvent } from "../../src/core-types/events.ts";
import { prepareRuntime, type PrepareOptions } from "../../src/compose/prepare.ts";
import { tempDir } from "../support/tempDir.ts";

const bridge = [process.execPath, join(import.meta.dir, "../../src/sandbox/bridgeMain.ts")];

function setUp(
  home: string,
  root: string,
  client: FakeModelClient,
  extra: Partial<PrepareOptions> = {},
): PrepareOptions {
  const paths = garudaPaths(home);
  mkdirSync(paths.dir, { recursive: true });
  writeFileSync(paths.models, JSON.stringify({ default: "claude-sonnet-5" }));
  writeCredentials(paths.credentials, { ANTHROPIC_API_KEY: "sk-ant-test-key-0000" });
  return {
    root,
    paths,
    env: { PATH: process.env.PATH, HOME: home },
    keys: new ProviderKeys(),
    managedPolicy: join(home, "no-managed-policy.json"),
    selfCommand: bridge,
    openModel: async () => client,
    ...extra,
  };
}

describe("prepareRuntime: from configuration to a session", () => {
  test("a whole turn with a real file tool, through the real engine, sandbox probe and audit log", async () => {
    using home = tempDir();
    using root = tempDir();
    writeFileSync(join(root.path, "notes.txt"), "the answer is 42\n");
    const client = new FakeModelClient([fake.toolCall("read_file", { path: "notes.txt" }), fake.text("It says 42.")]);
    const runtime = await prepareRuntime(setUp(home.path, root.path, client));
    const events: AgentEvent[] = [];
    try {
      expect(await runtime.runTurn("What do the notes say?", new AbortController().signal, (e) => events.push(e))).toBe(
        "done",
      );
    } finally {
      await runtime.close();
    }
    const result = events.find((e) => e.type === "tool_result");
    expect(result).toMatchObject({ status: "completed" });
    expect(result?.type === "tool_result" && result.output).toContain("the answer is 42");
    const second = client.requests[1];
    expect(JSON.stringify(second?.messages)).toContain("the answer is 42");
  });

  test(
    "a continued session goes on with the model and effort it used last; one that " +
      "cannot be used now falls back, with a notice",
    async () => {
      using home = tempDir();
      using root = tempDir();
      const client = new FakeModelClient([fake.text("one"), fake.text("two"), fake.text("three")]);
      const options = setUp(home.path, root.path, client);
      const first = await prepareRuntime(options);
      await first.controls.setModel("claude-haiku-4-5");
      first.controls.setEffort("medium");
      await first.runTurn("hello", new AbortController().signal, () => {});
      const file = first.session?.file as string;
      await first.close();

      const resumed = await prepareRuntime({ ...options, resume: file });
      try {
        expect(resumed.model.spec).toBe("claude-haiku-4-5");
        expect(resumed.controls.effort).toBe("medium");
        await resumed.runTurn("again", new AbortController().signal, () => {});
        expect(client.lastRequest.model).toBe("claude-haiku-4-5");
        expect(client.lastRequest.thinking).toEqual({ budgetTokens: 10_000 });
      } finally {
        await resumed.close();
      }
      // --model names another: it wins.
      const flagged = await prepareRuntime({ ...options, resume: file, modelFlag: "claude-sonnet-5" });
      expect(flagged.model.spec).toBe("claude-sonnet-5");
      await flagged.close();
      // The team policy no longer allows it: the usual model, and a notice says why.
      writeFileSync(options.paths.policy, JSON.stringify({ allowedModels: ["claude-sonnet-5"] }));
      const fallback = await prepareRuntime({ ...options, resume: file });
      try {
        expect(fallback.model.spec).toBe("claude-sonnet-5");
        const events: AgentEvent[] = [];
        await fallback.runTurn("and again", new AbortController().signal, (event) => events.push(event));
        const notices = events.flatMap((event) => (event.type === "notice" ? [event.text] : []));
        expect(
          notices.some((text) => text.startsWith("This conversation used claude-haiku-4-5, which cannot be used now")),
        ).toBe(true);
      } finally {
        await fallback.close();
      }
    },
  );

  test("no model, no key, a relative or missing folder: clear errors", async () => {
    using home = tempDir();
    using root = tempDir();
    const client = new FakeModelClient([]);
    const options = setUp(home.path, root.path, client);
    writeFileSync(options.paths.models, "{}");
    await expect(prepareRuntime(options)).rejects.toThrow(SetupRequiredError);
    await expect(prepareRuntime({ ...options, modelFlag: "claude-sonnet-5", root: "relative/dir" })).rejects.toThrow(
      ConfigError,
    );
    await expect(
      prepareRuntime({ ...options, modelFlag: "claude-sonnet-5", root: join(root.path, "missing") }),
    ).rejects.toThrow("does not exist");
  });

  test("the team policy's denied paths are hidden from search and refused to the file tools", async () => {
    using home = tempDir();
    using root = tempDir();
    mkdirSync(join(root.path, "secrets"));
    writeFileSync(join(root.path, "secrets", "token.txt"), "hunter2");
    writeFileSync(join(root.path, "ok.txt"), "fine");
    const options = setUp(
      home.path,
      root.path,
      new FakeModelClient([
        fake.toolCall("glob", { pattern: "**/*.txt" }),
        fake.toolCall("read_file", { path: "secrets/token.txt" }),
        fake.text("done"),
      ]),
    );
    writeFileSync(options.paths.policy, JSON.stringify({ denyPaths: ["secrets/**"] }));
    const runtime = await prepareRuntime(options);
    // The same predicate reaches a front end that lists the project's files itself (the chat's @ completion).
    const real = realpathSync(root.path);
    expect(runtime.withheld?.(join(real, "secrets", "token.txt"))).toBe(true);
    expect(runtime.withheld?.(join(real, "ok.txt"))).toBe(false);
    expect(runtime.withheld?.(join(real, ".env"))).toBe(true);
    const events: AgentEvent[] = [];
    try {
      await runtime.runTurn("look", new AbortController().signal, (e) => events.push(e));
    } finally {
      await runtime.close();
    }
    const results = events.filter((e): e is Extract<AgentEvent, { type: "tool_result" }> => e.type === "tool_result");
    expect(results[0]?.output).toContain("ok.txt");
    expect(results[0]?.output).not.toContain("token.txt");
    expect(results[1]?.status).toBe("denied");
    expect(JSON.stringify(events)).not.toContain("hunter2");
  });

  test(
    "commands run in the sandbox without a question, writes can be undone, and web " + "search needs a rule",
    async () => {
      using home = tempDir();
      using root = tempDir();
      writeFileSync(join(root.path, "a.txt"), "before\n");
      const client = new FakeModelClient([
        fake.toolCall("bash", { command: "echo sandboxed > made.txt && cat a.txt" }),
        fake.text("ran it"),
      ]);
      const options = setUp(home.path, root.path, client);
      const runtime = await prepareRuntime(options);
      const events: AgentEvent[] = [];
      try {
        await runtime.runTurn("run it", new AbortController().signal, (e) => events.push(e));
        const result = events.find((e) => e.type === "tool_result");
        expect(result).toMatchObject({ status: "completed" });
        expect(result?.type === "tool_result" && result.output).toContain("before");
        expect(client.requests[0]?.webSearch).toBeUndefined();
        const undone = await runtime.undo();
        expect(undone.removed).toContain("made.txt");
      } finally {
        await runtime.close();
      }

      writeFileSync(options.paths.policy, JSON.stringify({ permissions: { allow: ["web_search"] } }));
      const searching = new FakeModelClient([fake.text("ok")]);
      const second = await prepareRuntime({ ...options, openModel: async () => searching });
      try {
        await second.runTurn("search", new AbortController().signal, () => {});
        expect(searching.requests[0]?.webSearch).toBeDefined();
      } finally {
        await second.close();
      }
    },
  );

  test(
    "a garuda-<uid> folder another local user made first does not block the " +
      "session: it runs in a fresh private folder, with a notice",
    async () => {
      using home = tempDir();
      using root = tempDir();
      using temp = tempDir();
      const planted = join(realpathSync(temp.path), `garuda-${process.getuid?.() ?? 0}`);
      mkdirSync(planted, { mode: 0o700 });
      chownSync(planted, 65534, 65534);
      const client = new FakeModelClient([
        fake.toolCall("bash", { command: 'echo made > "$TMPDIR/x" && cat "$TMPDIR/x"' }),
        fake.text("done"),
      ]);
      const options = setUp(home.path, root.path, client);
      const runtime = await prepareRuntime({ ...options, env: { ...options.env, TMPDIR: temp.path } });
      const events: AgentEvent[] = [];
      try {
        await runtime.runTurn("run it", new AbortController().signal, (e) => events.push(e));
      } finally {
        await runtime.close();
      }
      const notice = events.find(
        (e) => e.type === "notice" && e.text.startsWith(`${planted} is not Garuda's private folder`),
      );
      expect(notice?.type === "notice" && notice.text).toContain("it belongs to another user (uid 65534)");
      expect(events.find((e) => e.type === "tool_result")).toMatchObject({
        status: "completed",
        output: expect.stringContaining("made"),
      });
      // Nothing went into the planted folder, and the private one went with the session.
      expect(readdirSync(planted)).toEqual([]);
      expect(readdirSync(temp.path)).toEqual([basename(planted)]);
    },
  );

  test(
    "a temp folder that does not exist is prepareRuntime's error (session/new's in " +
      "an editor), before anything is built",
    async () => {
      using home = tempDir();
      using root = tempDir();
      const options = setUp(home.path, root.path, new FakeModelClient(), {});
      const missing = join(home.path, "no-such-tmp");
      await expect(prepareRuntime({ ...options, env: { ...options.env, TMPDIR: missing } })).rejects.toThrow(
        `The temp folder ${missing} does not exist`,
      );
    },
  );
});
