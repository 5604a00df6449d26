// The core change ACP relies on: every question carries the id of the call it is about (the
// registry's callId through PermissionRequest into ApprovalRequest), also when read-only calls
// run in parallel; and write_file and edit_file describe their change (CallInfo.change), the same
// change the question shows.
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type * as acp from "@agentclientprotocol/sdk";
import { garudaPaths } from "../../src/config/paths.ts";
import { ProviderKeys } from "../../src/config/providerKeys.ts";
import { FakeModelClient, fake } from "../../src/model/fake.ts";
import type { ApprovalRequest, Approver, Choice } from "../../src/permission/types.ts";
import type { AgentEvent } from "../../src/core-types/events.ts";
import { prepareRuntime } from "../../src/compose/prepare.ts";
import { BRIDGE, ofKind, setUpHome, startHarness, testProbe } from "../support/acpHarness.ts";
import { tempDir } from "../support/tempDir.ts";

/** Answers "once", but only after every expected question is open at the same time. */
function gatheringApprover(expected: number): Approver & { asked: ApprovalRequest[] } {
  const asked: ApprovalRequest[] = [];
  const waiting: Array<() => void> = [];
  return {
    asked,
    ask: (request) =>
      new Promise<Choice>((resolve) => {
        asked.push(request);
        waiting.push(() => resolve("once"));
        if (waiting.length === expected) for (const release of waiting) release();
      }),
  };
}

/** Two files outside the root and a model that reads both in one step (read-only calls run in parallel). */
function outsideReads(dir: string): FakeModelClient {
  writeFileSync(join(dir, "a.txt"), "alpha\n");
  writeFileSync(join(dir, "b.txt"), "beta\n");
  return new FakeModelClient([
    fake.toolCalls([
      { name: "read_file", input: { path: join(dir, "a.txt") }, id: "toolu_a" },
      { name: "read_file", input: { path: join(dir, "b.txt") }, id: "toolu_b" },
    ]),
    fake.text("read both"),
  ]);
}

/** The production wiring with a fake model and the given approver. */
async function runtimeWith(home: string, root: string, approver: Approver, model: FakeModelClient) {
  return prepareRuntime({
    root,
    paths: garudaPaths(home),
    env: { PATH: process.env.PATH, HOME: home },
    keys: new ProviderKeys(),
    managedPolicy: join(home, "none.json"),
    approver,
    selfCommand: BRIDGE,
    probe: await testProbe(),
    openModel: async () => model,
  });
}

describe("the call id of a question", () => {
  test("parallel read-only calls (reads outside the root) ask with their own ids, at the same time", async () => {
    using home = tempDir();
    using root = tempDir();
    using outside = tempDir();
    setUpHome(home.path);
    const model = outsideReads(outside.path);
    const approver = gatheringApprover(2);
    const runtime = await runtimeWith(home.path, root.path, approver, model);
    const events: AgentEvent[] = [];
    try {
      expect(await runtime.runTurn("read them", new AbortController().signal, (e) => events.push(e))).toBe("done");
    } finally {
      await runtime.close();
    }
    // Both questions were open together (the approver released them only then), each with its call's id.
    expect(approver.asked.map((r) => r.callId).sort()).toEqual(["toolu_a", "toolu_b"]);
    for (const request of approver.asked) {
      const file = request.callId === "toolu_a" ? "a.txt" : "b.txt";
      expect(request.title).toContain(file);
    }
    expect(events.filter((e) => e.type === "tool_result" && e.status === "completed")).toHaveLength(2);
  });

  test("over ACP each question names its own toolCallId", async () => {
    using outside = tempDir();
    const model = outsideReads(outside.path);
    await using h = startHarness({ models: [model] });
    const open: Array<() => void> = [];
    h.answer = () =>
      new Promise<acp.RequestPermissionResponse>((resolve) => {
        open.push(() => resolve({ outcome: { outcome: "selected", optionId: "once" } }));
        if (open.length === 2) for (const release of open) release();
      });
    await h.initialize();
    const { sessionId } = await h.newSession();
    expect((await h.prompt(sessionId, "read them")).stopReason).toBe("end_turn");
    const byId = new Map(h.permissions.map((p) => [p.toolCall.toolCallId, p.toolCall.title]));
    expect(byId.get("toolu_a")).toContain("a.txt");
    expect(byId.get("toolu_b")).toContain("b.txt");
    expect(ofKind(h.updatesOf(sessionId), "tool_call").map((u) => u.toolCallId)).toEqual(["toolu_a", "toolu_b"]);
  });
});

describe("CallInfo.change of write_file and edit_file", () => {
  test("plan() sets the change, and the question carries the same change", async () => {
    using home = tempDir();
    using root = tempDir();
    setUpHome(home.path);
    writeFileSync(join(root.path, "old.txt"), "one\ntwo\n");
    const model = new FakeModelClient([
      fake.toolCall("write_file", { path: "new.txt", content: "fresh\n" }, { id: "toolu_write" }),
      fake.toolCall("read_file", { path: "old.txt" }, { id: "toolu_read" }),
      fake.toolCall("edit_file", { path: "old.txt", old_string: "two", new_string: "2" }, { id: "toolu_edit" }),
      fake.text("done"),
    ]);
    const asked: ApprovalRequest[] = [];
    const approver: Approver = {
      ask: async (request) => {
        asked.push(request);
        return "once";
      },
    };
    const runtime = await runtimeWith(home.path, root.path, approver, model);
    const events: AgentEvent[] = [];
    try {
      await runtime.runTurn("change files", new AbortController().signal, (e) => events.push(e));
    } finally {
      await runtime.close();
    }
    const calls = events.filter((e): e is Extract<AgentEvent, { type: "tool_call" }> => e.type === "tool_call");
    const write = calls.find((c) => c.callId === "toolu_write");
    const edit = calls.find((c) => c.callId === "toolu_edit");
    expect(write?.info.change).toEqual({ path: join(root.path, "new.txt"), oldText: null, newText: "fresh\n" });
    expect(edit?.info.change).toEqual({ path: join(root.path, "old.txt"), oldText: "one\ntwo\n", newText: "one\n2\n" });
    expect(calls.find((c) => c.callId === "toolu_read")?.info.change).toBeUndefined();
    expect(asked.map((r) => r.callId)).toEqual(["toolu_write", "toolu_edit"]);
    expect(asked[0]?.change).toEqual(write?.info.change);
    expect(asked[1]?.change).toEqual(edit?.info.change);
  });
});
