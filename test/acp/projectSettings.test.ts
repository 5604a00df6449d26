// Project settings that loosen safety, asked in the editor at the first prompt (issue 18, item 5):
// the real prepareRuntime, trust store and permission engine behind the in-process ACP server.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { garudaPaths } from "../../src/config/paths.ts";
import { FakeModelClient, fake } from "../../src/model/fake.ts";
import { contentText, type Harness, messageText, ofKind, select, startHarness } from "../support/acpHarness.ts";

function writeSettings(root: string, settings: unknown): void {
  mkdirSync(join(root, ".garuda"), { recursive: true });
  writeFileSync(join(root, ".garuda", "settings.json"), JSON.stringify(settings));
}

/** A model that writes a.txt, then ends, for each of `turns` prompts. */
function writer(turns: number): FakeModelClient {
  return new FakeModelClient(
    Array.from({ length: turns }, (_, i) => [
      fake.toolCall("write_file", { path: `a${i}.txt`, content: "x\n" }, { id: `toolu_w${i}` }),
      fake.text("done"),
    ]).flat(),
  );
}

const trustFile = (h: Harness) => garudaPaths(h.home).trust;
const settingsPinned = (h: Harness) =>
  existsSync(trustFile(h)) && Object.keys(JSON.parse(readFileSync(trustFile(h), "utf8")).settings ?? {}).length > 0;

describe("project settings asked in the editor", () => {
  test(
    "the first prompt asks with exactly what the settings loosen; a yes applies " +
      "them at once and is pinned in trust.json",
    async () => {
      await using h = startHarness({ models: [writer(1)] });
      writeSettings(h.root, { permissions: { allow: ["write_file"] }, network: { allow: ["registry.npmjs.org"] } });
      h.answer = (params) => select(params.options[0]?.optionId ?? "deny");
      await h.initialize();
      const { sessionId } = await h.newSession();
      // session/new asks nothing (no prompt runs, so no editor waits for a question).
      expect(h.permissions).toHaveLength(0);
      await h.prompt(sessionId, "go");
      // One question, its own entry, and the write then ran without one: the loosened rule applied.
      expect(h.permissions.map((p) => p.toolCall.toolCallId)).toEqual(["garuda-question-1"]);
      const question = h.permissions[0];
      const text = contentText(question?.toolCall.content);
      expect(text).toContain("loosen Garuda's safety");
      expect(text).toContain("permissions.allow (run without asking): write_file");
      expect(text).toContain("network.allow (hosts commands may reach): registry.npmjs.org");
      expect(question?.options.map((o) => [o.optionId, o.kind])).toEqual([
        ["session", "allow_always"],
        ["deny", "reject_once"],
      ]);
      const entry = ofKind(h.updatesOf(sessionId), "tool_call").find((u) => u.toolCallId === "garuda-question-1");
      expect(entry?.title).toBe("Trust this project's settings?");
      expect(readFileSync(join(h.root, "a0.txt"), "utf8")).toBe("x\n");
      expect(settingsPinned(h)).toBe(true);
      // No leftover "run garuda in the terminal to approve" line.
      expect(messageText(h.updatesOf(sessionId))).not.toContain("To approve, run");
    },
  );

  test("a pinned yes is not asked again in the next session; a changed file is asked again", async () => {
    await using h = startHarness({ models: [writer(3)] });
    writeSettings(h.root, { permissions: { allow: ["write_file"] } });
    h.answer = (params) => select(params.options[0]?.optionId ?? "deny");
    await h.initialize();
    await h.prompt((await h.newSession()).sessionId, "go");
    expect(h.permissions).toHaveLength(1);
    const second = (await h.newSession()).sessionId;
    await h.prompt(second, "go");
    expect(h.permissions).toHaveLength(1);
    expect(readFileSync(join(h.root, "a1.txt"), "utf8")).toBe("x\n");
    writeSettings(h.root, { permissions: { allow: ["write_file", "bash"] } });
    const third = (await h.newSession()).sessionId;
    await h.prompt(third, "go");
    expect(h.permissions).toHaveLength(2);
    expect(contentText(h.permissions[1]?.toolCall.content)).toContain("write_file, bash");
  });

  test(
    "negative control: a no keeps the safe defaults (the write asks), pins nothing, " +
      "says so, and is not asked again in the session",
    async () => {
      await using h = startHarness({ models: [writer(2)] });
      writeSettings(h.root, { permissions: { allow: ["write_file"] } });
      h.answer = (params) => select(params.toolCall.toolCallId.startsWith("garuda-question-") ? "deny" : "once");
      await h.initialize();
      const { sessionId } = await h.newSession();
      await h.prompt(sessionId, "go");
      expect(h.permissions.map((p) => p.toolCall.toolCallId)).toEqual(["garuda-question-1", "toolu_w0"]);
      expect(messageText(h.updatesOf(sessionId))).toContain("Garuda's safe defaults apply");
      expect(settingsPinned(h)).toBe(false);
      await h.prompt(sessionId, "again");
      expect(h.permissions.map((p) => p.toolCall.toolCallId)).toEqual(["garuda-question-1", "toolu_w0", "toolu_w1"]);
    },
  );

  test("negative control: settings that loosen nothing ask nothing", async () => {
    await using h = startHarness({ models: [writer(1)] });
    writeSettings(h.root, { permissions: { deny: ["bash(rm*)"] } });
    await h.initialize();
    await h.prompt((await h.newSession()).sessionId, "go");
    expect(h.permissions.map((p) => p.toolCall.toolCallId)).toEqual(["toolu_w0"]);
  });

  test("a yes keeps the mode the editor chose before the first prompt", async () => {
    await using h = startHarness({ models: [writer(1)] });
    writeSettings(h.root, { permissions: { allow: ["write_file"] } });
    h.answer = (params) => select(params.options[0]?.optionId ?? "deny");
    await h.initialize();
    const { sessionId } = await h.newSession();
    await h.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: "plan" });
    await h.prompt(sessionId, "go");
    // Plan mode still refuses the write after the settings were trusted.
    expect(existsSync(join(h.root, "a0.txt"))).toBe(false);
    expect(settingsPinned(h)).toBe(true);
  });
});
