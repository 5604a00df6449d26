// session/new (src/acp/sessions.ts create): the configuration is read and checked and the
// runtime built before the answer, as for session/load and resume, so every failure is the
// request's own error and a shutdown meanwhile leaves nothing behind. The build is held on a
// gate here, so a test can act while it runs.
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import * as acp from "@agentclientprotocol/sdk";
import type { PrepareRequest } from "../../src/acp/server.ts";
import { garudaPaths } from "../../src/config/paths.ts";
import { ConfigError } from "../../src/errors/configError.ts";
import { FakeModelClient, fake } from "../../src/model/fake.ts";
import { sessionFolderBase } from "../../src/sandbox/sessionFolders.ts";
import { type Harness, messageText, ofKind, realPrepare, rejection, startHarness } from "../support/acpHarness.ts";

/** A prepare() that waits for `open()` before it builds the runtime, or fails with `fail` then. */
function gatedPrepare(model: FakeModelClient, fail?: Error) {
  let open: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  let built = 0;
  const prepare = async (request: PrepareRequest, h: Harness) => {
    await gate;
    if (fail) throw fail;
    const runtime = await realPrepare(h.home, () => model)(request);
    built++;
    return runtime;
  };
  return { prepare, open: () => open(), built: () => built };
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

describe("session/new builds the session before it answers", () => {
  test("the answer waits for the runtime; the start updates follow it and a prompt runs at once", async () => {
    const model = new FakeModelClient([fake.text("Hello from the model.")]);
    const gated = gatedPrepare(model);
    await using h = startHarness({ prepare: gated.prepare });
    await h.initialize();
    const answering = h.newSession();
    expect(await within(answering, 200)).toBe("pending");
    gated.open();
    const answer = await answering;
    expect(gated.built()).toBe(1);
    expect(answer.modes?.currentModeId).toBe("build");
    expect(answer.configOptions?.map((o) => o.id)).toEqual(["mode", "model", "effort"]);
    await h.waitFor((u) => u.sessionUpdate === "available_commands_update");
    expect(ofKind(h.updatesOf(answer.sessionId), "available_commands_update").length).toBe(1);
    expect((await h.prompt(answer.sessionId, "hi")).stopReason).toBe("end_turn");
    expect(messageText(h.updatesOf(answer.sessionId))).toBe("Hello from the model.");
  });

  test(
    "a runtime that cannot be built is session/new's error, with the file and the " + "fix; no session is left",
    async () => {
      const gated = gatedPrepare(
        new FakeModelClient(),
        new ConfigError("/p/settings.json", "the session folder could not be made", "free some disk space"),
      );
      await using h = startHarness({ prepare: gated.prepare });
      await h.initialize();
      const failing = rejection(h.newSession());
      gated.open();
      const failed = await failing;
      expect(failed.message).toContain("the session folder could not be made");
      expect(failed.message).toContain("/p/settings.json");
      expect(failed.message).toContain("free some disk space");
      expect(h.updates).toEqual([]);
    },
  );

  test(
    "a shutdown while the runtime is built settles once that runtime is closed: its " + "session folder is gone",
    async () => {
      const gated = gatedPrepare(new FakeModelClient());
      await using h = startHarness({ prepare: gated.prepare });
      const before = ownFolders();
      await h.initialize();
      const answer = rejection(h.newSession());
      await Bun.sleep(50);
      const shutdown = h.server.shutdown();
      await Bun.sleep(20);
      gated.open();
      await shutdown;
      await answer; // refused (or the connection ended with the shutdown)
      expect(gated.built()).toBe(1);
      expect(ownFolders().filter((name) => !before.includes(name))).toEqual([]);
    },
  );

  test("setup errors fail session/new: no key, a model the team policy forbids", async () => {
    await using h = startHarness();
    const before = ownFolders();
    await h.initialize();
    writeFileSync(garudaPaths(h.home).policy, JSON.stringify({ allowedModels: ["claude-haiku-*"] }));
    const forbidden = await rejection(h.newSession());
    expect(forbidden.message).toContain("claude-sonnet-5");
    writeFileSync(garudaPaths(h.home).policy, "{}");
    writeFileSync(garudaPaths(h.home).credentials, "{}");
    const keyless = await rejection(h.newSession());
    expect(keyless.code).toBe(acp.RequestError.authRequired().code);
    expect(ownFolders().filter((name) => !before.includes(name))).toEqual([]);
  });
});
