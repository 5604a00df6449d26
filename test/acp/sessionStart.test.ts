// session/new in two steps (src/acp/sessions.ts, compose/prepare.ts planRuntime): the answer is
// made from the configuration read and checked, and the runtime is built after it. The build is
// held on a gate here, so each test sees the moment between the two: the answer is there, the
// session's requests wait for the runtime, a cancel ends a waiting prompt, and a build that
// fails is the error of every request for the session until it is closed.
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import * as acp from "@agentclientprotocol/sdk";
import type { PlannedSession } from "../../src/acp/sessions.ts";
import { configOptions, sessionModes } from "../../src/acp/configOptions.ts";
import type { PrepareRequest } from "../../src/acp/server.ts";
import { garudaPaths } from "../../src/config/paths.ts";
import { ConfigError } from "../../src/errors/configError.ts";
import { FakeModelClient, fake } from "../../src/model/fake.ts";
import { sessionFolderBase } from "../../src/sandbox/sessionFolders.ts";
import { type Harness, messageText, ofKind, realPlan, rejection, startHarness } from "../support/acpHarness.ts";

/** A plan whose runtime is built only once `open()` is called. */
function gatedPlan(model: FakeModelClient, fail?: Error, planGate?: Promise<void>) {
  let open: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  let built = 0;
  let buildsStarted = 0;
  const plan =
    (h: () => Harness) =>
    async (request: PrepareRequest): Promise<PlannedSession> => {
      await planGate;
      const planned = await realPlan(h().home, () => model)(request);
      return {
        view: planned.view,
        build: async () => {
          buildsStarted++;
          await gate;
          if (fail) throw fail;
          const runtime = await planned.build();
          built++;
          return runtime;
        },
      };
    };
  return { plan, open: () => open(), built: () => built, buildsStarted: () => buildsStarted };
}

/** Settles with "pending" when `promise` has not settled within `ms`. */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | "pending"> {
  return Promise.race([promise, Bun.sleep(ms).then(() => "pending" as const)]);
}

/** This process's session folders (sandbox/sessionFolders.ts names them `<pid>-…`). */
function ownFolders(): string[] {
  const base = sessionFolderBase({ PATH: process.env.PATH });
  return existsSync(base) ? readdirSync(base).filter((name) => name.startsWith(`${process.pid}-`)) : [];
}

function harnessWith(gated: ReturnType<typeof gatedPlan>): Harness {
  let h: Harness | undefined;
  h = startHarness({ server: { plan: gated.plan(() => h as Harness) } });
  return h;
}

describe("session/new before its runtime", () => {
  test("the answer comes while the runtime is not built; a prompt sent meanwhile waits for it, then runs; the start updates follow the build", async () => {
    const model = new FakeModelClient([fake.text("Hello from the model.")]);
    const gated = gatedPlan(model);
    await using h = harnessWith(gated);
    await h.initialize();
    // The old one-step session/new waited for the runtime: here it would never answer.
    const answer = await within(h.newSession(), 5_000);
    if (answer === "pending") throw new Error("session/new waited for the runtime");
    expect(gated.built()).toBe(0);
    expect(answer.modes?.currentModeId).toBe("build");
    expect(answer.configOptions?.map((o) => o.id)).toEqual(["mode", "model", "effort"]);
    // Nothing is announced for a session whose runtime is not there.
    expect(h.updatesOf(answer.sessionId)).toEqual([]);

    const prompt = h.prompt(answer.sessionId, "hi");
    expect(await within(prompt, 200)).toBe("pending");
    gated.open();
    expect((await prompt).stopReason).toBe("end_turn");
    expect(gated.built()).toBe(1);
    expect(messageText(h.updatesOf(answer.sessionId))).toBe("Hello from the model.");
    await h.waitFor((u) => u.sessionUpdate === "available_commands_update");
    expect(ofKind(h.updatesOf(answer.sessionId), "available_commands_update").length).toBe(1);
  });

  test("a session/cancel while the runtime is built ends the waiting prompt as cancelled; the next prompt runs", async () => {
    const model = new FakeModelClient([fake.text("After the cancel.")]);
    const gated = gatedPlan(model);
    await using h = harnessWith(gated);
    await h.initialize();
    const { sessionId } = await h.newSession();
    const waiting = h.prompt(sessionId, "first");
    await Bun.sleep(50);
    await h.agent.notify(acp.methods.agent.session.cancel, { sessionId });
    expect((await waiting).stopReason).toBe("cancelled");
    // The cancelled prompt never reached the model.
    expect(model.requests.length).toBe(0);
    gated.open();
    expect((await h.prompt(sessionId, "second")).stopReason).toBe("end_turn");
    expect(JSON.stringify(model.lastRequest.messages)).toContain("second");
    expect(JSON.stringify(model.lastRequest.messages)).not.toContain("first");
  });

  test("set_mode and set_config_option sent meanwhile wait for the runtime and apply to it", async () => {
    const gated = gatedPlan(new FakeModelClient([fake.text("ok")]));
    await using h = harnessWith(gated);
    await h.initialize();
    const { sessionId } = await h.newSession();
    const mode = h.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: "plan" });
    const effort = h.agent.request(acp.methods.agent.session.setConfigOption, {
      sessionId,
      configId: "effort",
      value: "low",
    });
    expect(await within(mode, 100)).toBe("pending");
    gated.open();
    await mode;
    const answer = await effort;
    expect(answer.configOptions.find((o) => o.id === "mode")?.currentValue).toBe("plan");
    expect(answer.configOptions.find((o) => o.id === "effort")?.currentValue).toBe("low");
  });

  test("a runtime that cannot be built is the error of every request for the session; session/close forgets it", async () => {
    const gated = gatedPlan(
      new FakeModelClient(),
      new ConfigError("/p/settings.json", "the session folder could not be made", "free some disk space"),
    );
    await using h = harnessWith(gated);
    await h.initialize();
    const { sessionId } = await h.newSession();
    const waiting = rejection(h.prompt(sessionId, "hi"));
    gated.open();
    const failed = await waiting;
    expect(failed.message).toContain("the session folder could not be made");
    // It says the session is over, and what to do.
    expect(failed.message).toStartWith("This session could not start:");
    expect(failed.message).toEndWith("Close it and open a new session.");
    // Still the same error afterwards, for a prompt and for a control.
    expect((await rejection(h.prompt(sessionId, "again"))).message).toContain("the session folder could not be made");
    expect(
      (await rejection(h.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: "plan" }))).message,
    ).toContain("the session folder could not be made");
    expect(await h.agent.request(acp.methods.agent.session.close, { sessionId })).toEqual({});
    expect((await rejection(h.prompt(sessionId, "after close"))).code).toBe(-32002);
  });

  test("session/delete of a session that could not start forgets it too", async () => {
    const gated = gatedPlan(new FakeModelClient(), new Error("no runtime today"));
    await using h = harnessWith(gated);
    await h.initialize();
    const { sessionId } = await h.newSession();
    gated.open();
    expect((await rejection(h.prompt(sessionId, "hi"))).message).toContain("no runtime today");
    expect(await h.agent.request(acp.methods.agent.session.delete, { sessionId })).toEqual({});
    expect((await rejection(h.prompt(sessionId, "after delete"))).code).toBe(-32002);
  });

  test("a shutdown while session/new reads the configuration: no runtime is built after it", async () => {
    let openPlan: () => void = () => {};
    const planGate = new Promise<void>((resolve) => {
      openPlan = resolve;
    });
    const gated = gatedPlan(new FakeModelClient(), undefined, planGate);
    gated.open();
    await using h = harnessWith(gated);
    await h.initialize();
    const answer = rejection(h.newSession());
    await Bun.sleep(50);
    const shutdown = h.server.shutdown();
    openPlan();
    await shutdown;
    await answer; // refused (or the connection ended with the shutdown)
    await Bun.sleep(100);
    expect(gated.buildsStarted()).toBe(0);
  });

  test("a shutdown while a runtime is built settles once that runtime is closed: its session folder is gone", async () => {
    const gated = gatedPlan(new FakeModelClient());
    await using h = harnessWith(gated);
    const before = ownFolders();
    await h.initialize();
    await h.newSession();
    await Bun.sleep(50);
    const shutdown = h.server.shutdown();
    await Bun.sleep(20);
    gated.open();
    await shutdown;
    expect(gated.built()).toBe(1);
    expect(ownFolders().filter((name) => !before.includes(name))).toEqual([]);
  });

  test("setup errors still fail session/new itself: no key, a model the team policy forbids", async () => {
    const gated = gatedPlan(new FakeModelClient());
    await using h = harnessWith(gated);
    await h.initialize();
    writeFileSync(garudaPaths(h.home).policy, JSON.stringify({ allowedModels: ["claude-haiku-*"] }));
    const forbidden = await rejection(h.newSession());
    expect(forbidden.message).toContain("claude-sonnet-5");
    writeFileSync(garudaPaths(h.home).policy, "{}");
    writeFileSync(garudaPaths(h.home).credentials, "{}");
    const keyless = await rejection(h.newSession());
    expect(keyless.code).toBe(acp.RequestError.authRequired().code);
    expect(gated.built()).toBe(0);
  });
});

describe("the answer from the plan is the runtime's", () => {
  const cases: Array<{ name: string; policy?: object; models?: object }> = [
    { name: "defaults" },
    {
      name: "a team policy with plan mode only and two models",
      policy: { allowedModes: ["plan"], allowedModels: ["claude-sonnet-5", "claude-haiku-*"] },
    },
    {
      name: "a models.json with a local model as the default (no effort levels)",
      models: { default: "ollama/tiny", models: { "ollama/tiny": { contextWindow: 32_000, maxTokens: 4_000 } } },
    },
  ];
  for (const { name, policy, models } of cases) {
    test(name, async () => {
      await using h = startHarness();
      const paths = garudaPaths(h.home);
      if (policy) writeFileSync(paths.policy, JSON.stringify(policy));
      if (models) writeFileSync(paths.models, JSON.stringify(models));
      const plan = realPlan(h.home, () => new FakeModelClient());
      const request: PrepareRequest = {
        cwd: h.root,
        additionalDirectories: [],
        approver: { ask: async () => ({ decision: "deny" }) } as unknown as PrepareRequest["approver"],
        sessionId: "20261202-000000-00000000",
        projectTrust: async () => false,
        mcpServers: [],
      };
      const planned = await plan(request);
      const runtime = await planned.build();
      try {
        expect(sessionModes(planned.view)).toEqual(sessionModes(runtime));
        expect(configOptions(planned.view)).toEqual(configOptions(runtime));
      } finally {
        await runtime.close();
      }
    });
  }
});
