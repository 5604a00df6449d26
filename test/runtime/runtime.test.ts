// The Runtime's API around the loop: commands, modes, notices, undo, audit, one turn at a time, close.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fake } from "../../src/model/fake.ts";
import type { ModelRequest } from "../../src/model/types.ts";
import { BUILD_AGAIN_NOTE, PLAN_NOTE, planStoppedNote } from "../../src/runtime/notes.ts";
import type { CommandProvider, UndoStore } from "../../src/runtime/services.ts";
import type { BackgroundJob, BackgroundJobs } from "../../src/tools/processTable.ts";
import type { AuditEvent } from "../../src/store/auditEvents.ts";
import { bashTool } from "../../src/tools/bash.ts";
import { fakeExecutor, ofType, scriptedApprover, testRuntime, turn } from "../support/runtimeHelpers.ts";

const firstText = (request: ModelRequest | undefined) => {
  const content = request?.messages.at(-1)?.content ?? [];
  return content.flatMap((block) => (block.type === "text" ? [block.text] : []));
};

describe("commands", () => {
  const commands: CommandProvider = {
    resolve: (name, args) => (name === "review" ? `Review the changes. Focus: ${args}` : undefined),
    list: () => [{ name: "review", description: "Review the changes", argumentHint: "[focus]" }],
  };

  test("built-ins, custom commands and skills, unknown names, and prompts that only look like commands", async () => {
    await using t = testRuntime({ commands });
    expect(t.runtime.resolveCommand("/undo")).toEqual({ kind: "builtin", name: "undo", args: "" });
    expect(t.runtime.resolveCommand("/compact keep the test names")).toEqual({
      kind: "builtin",
      name: "compact",
      args: "keep the test names",
    });
    expect(t.runtime.resolveCommand("/review auth code")).toEqual({
      kind: "prompt",
      text: "Review the changes. Focus: auth code",
      command: "review",
    });
    expect(t.runtime.resolveCommand("/nope")).toEqual({ kind: "unknown", name: "nope" });
    expect(t.runtime.resolveCommand("/usr/bin/env is missing")).toEqual({
      kind: "prompt",
      text: "/usr/bin/env is missing",
    });
    expect(t.runtime.resolveCommand("fix the bug")).toEqual({ kind: "prompt", text: "fix the bug" });
    expect(t.runtime.availableCommands()).toEqual([
      { name: "review", description: "Review the changes", argumentHint: "[focus]" },
    ]);
  });

  test("without a provider only built-ins resolve", async () => {
    await using t = testRuntime();
    expect(t.runtime.resolveCommand("/review x")).toEqual({ kind: "unknown", name: "review" });
    expect(t.runtime.availableCommands()).toEqual([]);
  });
});

describe("modes", () => {
  test("an empty or blank prompt sends nothing to the model and records nothing", async () => {
    await using t = testRuntime({ turns: [fake.text("never")] });
    for (const prompt of ["", "   \n\t"]) {
      const { stop, events } = await turn(t.runtime, prompt);
      expect(stop).toBe("done");
      expect(events).toEqual([
        { type: "notice", level: "info", text: "The prompt was empty, so nothing was sent to the model." },
      ]);
    }
    expect(t.model.requests).toHaveLength(0);
    expect(t.runtime.messages).toHaveLength(0);
  });

  test("setMode applies from the next turn, as a note in the user message", async () => {
    const approver = scriptedApprover("once");
    await using t = testRuntime({
      approver,
      turns: [
        fake.text("one"),
        fake.toolCall("write", { path: "a.txt", content: "x" }),
        fake.text("planned"),
        fake.text("three"),
      ],
    });
    await turn(t.runtime, "first");
    await t.runtime.setMode("plan");
    expect(t.runtime.mode).toBe("plan");
    const { events } = await turn(t.runtime, "second");
    expect(firstText(t.model.requests[1])).toEqual([`<garuda_note>\n${PLAN_NOTE}\n</garuda_note>`, "second"]);
    expect(ofType(events, "tool_result")[0]?.status).toBe("denied");
    expect(approver.asked).toHaveLength(0);
    await t.runtime.setMode("build");
    await turn(t.runtime, "third");
    expect(firstText(t.model.requests[3])).toEqual([`<garuda_note>\n${BUILD_AGAIN_NOTE}\n</garuda_note>`, "third"]);
    expect(firstText(t.model.requests[0])).toEqual(["first"]);
  });
});

/** Background jobs that can write the project, as ProcessTable.stopWriters reports them: each is stopped once. */
function writingJobs(...jobs: BackgroundJob[]): BackgroundJobs & { calls: number; running: BackgroundJob[] } {
  const state = {
    calls: 0,
    running: [...jobs],
    async stopWriters() {
      state.calls++;
      return state.running.splice(0);
    },
  };
  return state;
}

describe("a switch to plan mode and the background jobs", () => {
  const job = { id: "p1", command: "npm run dev", sandboxed: true };

  test(
    "stops the jobs that can write the project; the user gets the notice at once, " +
      "the model at the next turn, the audit log too",
    async () => {
      const jobs = writingJobs(job);
      const audit: AuditEvent[] = [];
      await using t = testRuntime({
        jobs,
        audit: { record: (event) => audit.push(event) },
        turns: [fake.text("planned")],
      });
      const switched = await t.runtime.setMode("plan");
      expect(switched).toEqual({ notices: [planStoppedNote([job])] });
      expect(switched.notices[0]).toBe(
        "Plan mode stopped the background process p1 ($ npm run dev): it was started in " +
          "build mode and could write the project. Start it again with process_manager if " +
          "needed: in plan mode it runs in the sandbox with the project read-only.",
      );
      expect(audit).toContainEqual({ type: "notice", text: planStoppedNote([job]) });
      const { events } = await turn(t.runtime, "plan it");
      expect(firstText(t.model.requests[0])).toEqual([
        `<garuda_note>\n${PLAN_NOTE}\n</garuda_note>`,
        `<garuda_note>\n${planStoppedNote([job])}\n</garuda_note>`,
        "plan it",
      ]);
      // Nothing was left to stop when the plan turn began: no second notice.
      expect(ofType(events, "notice")).toEqual([]);
      expect(jobs.calls).toBe(2);
    },
  );

  test("a job a build turn started after the switch is stopped when the plan turn begins, with a notice", async () => {
    const jobs = writingJobs();
    await using t = testRuntime({ jobs, turns: [fake.text("planned")] });
    expect(await t.runtime.setMode("plan")).toEqual({ notices: [] });
    jobs.running.push({ id: "p2", command: "make watch", sandboxed: false });
    const { events } = await turn(t.runtime, "plan it");
    const text = planStoppedNote([{ id: "p2", command: "make watch", sandboxed: false }]);
    expect(text).toContain("started in build mode or outside the sandbox");
    expect(ofType(events, "notice").map((event) => event.text)).toEqual([text]);
    expect(firstText(t.model.requests[0])).toContain(`<garuda_note>\n${text}\n</garuda_note>`);
  });

  test("build mode and a refused switch stop nothing", async () => {
    const jobs = writingJobs(job);
    await using t = testRuntime({
      jobs,
      modeRefusal: (mode) => (mode === "plan" ? "The team policy does not allow plan mode." : undefined),
    });
    expect(await t.runtime.setMode("plan")).toEqual({
      refusal: "The team policy does not allow plan mode.",
      notices: [],
    });
    expect(await t.runtime.setMode("build")).toEqual({ notices: [] });
    expect(jobs.calls).toBe(0);
    expect(t.runtime.mode).toBe("build");
  });
});

describe("services", () => {
  test("notices from the wiring are delivered once, at the first turn", async () => {
    await using t = testRuntime({
      notices: [{ level: "info", text: "Project settings were ignored: not trusted yet." }],
      turns: [fake.text("a"), fake.text("b")],
    });
    const first = await turn(t.runtime, "one");
    expect(ofType(first.events, "notice").map((event) => event.text)).toEqual([
      "Project settings were ignored: not trusted yet.",
    ]);
    const second = await turn(t.runtime, "two");
    expect(ofType(second.events, "notice")).toEqual([]);
  });

  test("a warning raised after start (warn) reaches the user and the model at the next turn, once", async () => {
    await using t = testRuntime({ turns: [fake.text("a"), fake.text("b")] });
    t.runtime.warn("The secret identity walk was cut.");
    const first = await turn(t.runtime, "one");
    expect(ofType(first.events, "notice").map((event) => event.text)).toEqual(["The secret identity walk was cut."]);
    expect(firstText(t.model.requests[0]).join("\n")).toContain("The secret identity walk was cut.");
    const second = await turn(t.runtime, "two");
    expect(ofType(second.events, "notice")).toEqual([]);
    expect(firstText(t.model.requests[1]).join("\n")).not.toContain("The secret identity walk was cut.");
  });

  test("undo: a turn begins a snapshot, writes snapshot first, /undo delegates and the model hears of it", async () => {
    const calls: string[] = [];
    const undo: UndoStore = {
      beginTurn: async () => {
        calls.push("beginTurn");
      },
      snapshot: async (paths) => {
        calls.push(`snapshot ${paths.join(",")}`);
      },
      undoLastTurn: async () => {
        calls.push("undo");
        return { restored: ["a.txt"], removed: [], notes: [] };
      },
    };
    await using t = testRuntime({
      undo,
      approver: scriptedApprover("once"),
      turns: [fake.toolCall("write", { path: "a.txt", content: "new" }), fake.text("written"), fake.text("ok")],
    });
    await turn(t.runtime, "write");
    expect(calls).toEqual(["beginTurn", `snapshot ${join(t.runtime.root, "a.txt")}`]);
    expect(readFileSync(join(t.runtime.root, "a.txt"), "utf8")).toBe("new");
    expect(await t.runtime.undo()).toEqual({ restored: ["a.txt"], removed: [], notes: [] });
    await turn(t.runtime, "next");
    expect(firstText(t.model.requests[2])[0]).toContain(
      "The user undid the file changes of the last turn (restored a.txt).",
    );
  });

  test("undo: a command of the turn waits for its snapshot; the user's own command opens no undo point", async () => {
    const calls: string[] = [];
    // Commands "run" (and say so) without a sandbox: no processes in this test.
    const ranExecutor = {
      ...fakeExecutor({ available: false, reason: "none here", fix: "none" }),
      run: async () => {
        calls.push("run");
        return {
          exitCode: 0,
          signal: null,
          output: "",
          truncated: false,
          timedOut: false,
          killed: false,
          durationMs: 1,
        };
      },
    };
    const undo: UndoStore = {
      beginTurn: async () => {
        calls.push("beginTurn");
      },
      beforeCommand: async () => {
        calls.push("beforeCommand");
      },
      snapshot: async () => {},
      undoLastTurn: async () => ({ restored: [], removed: [], notes: [] }),
    };
    await using t = testRuntime({
      undo,
      approver: scriptedApprover("once", "once"),
      turns: [fake.toolCall("bash", { command: "echo hi" }), fake.text("ran it")],
      executor: ranExecutor,
      tools: [bashTool()],
    });
    await turn(t.runtime, "run it");
    expect(calls).toEqual(["beginTurn", "beforeCommand", "run"]);
    await t.runtime.runUserCommand("echo mine", new AbortController().signal, () => undefined);
    expect(calls).toEqual(["beginTurn", "beforeCommand", "run", "run"]);
  });

  test("undo is off without a store", async () => {
    await using t = testRuntime();
    expect(await t.runtime.undo()).toEqual({ restored: [], removed: [], notes: ["Undo is off in this session."] });
  });

  test("the audit sink hears requests, results and the stop; the engine's callback hears decisions", async () => {
    const audited: AuditEvent[] = [];
    await using t = testRuntime({
      audit: { record: (event) => audited.push(event) },
      approver: scriptedApprover("deny"),
      turns: [fake.toolCall("write", { path: "a.txt", content: "x" }, { id: "toolu_a" }), fake.text("ok")],
    });
    await turn(t.runtime, "go");
    expect(audited.map((event) => event.type)).toEqual(["tool_request", "tool_result", "stop"]);
    expect(audited[0]).toMatchObject({
      type: "tool_request",
      callId: "toolu_a",
      tool: "write",
      title: "Write a.txt",
      target: "write a.txt",
    });
    expect(audited[2]).toEqual({ type: "stop", reason: "done" });
    expect(t.decisions.map((event) => event.type)).toEqual(["decision", "answer"]);
  });

  test("one turn at a time; close stops the turn, shuts the executor down, and the session refuses more", async () => {
    await using t = testRuntime({ turns: [[fake.wait(Infinity)]] });
    const running = t.runtime.runTurn("long", new AbortController().signal, () => {});
    await expect(t.runtime.runTurn("second", new AbortController().signal, () => {})).rejects.toThrow(
      "A turn is already running",
    );
    await t.runtime.close();
    expect(await running).toBe("cancelled");
    expect(t.executor.shutdowns).toBe(1);
    await expect(t.runtime.runTurn("after", new AbortController().signal, () => {})).rejects.toThrow("closed");
    await t.runtime.close();
    expect(t.executor.shutdowns).toBe(1);
    const records = readFileSync(t.runtime.session?.file as string, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(records.at(-1)).toMatchObject({ type: "end", stopReason: "cancelled" });
  });

  test("an onEvent that throws does not break the turn", async () => {
    await using t = testRuntime({
      files: { "a.txt": "alpha" },
      turns: [fake.toolCall("read", { path: "a.txt" }), fake.text("done")],
    });
    const stop = await t.runtime.runTurn("go", new AbortController().signal, () => {
      throw new Error("display broke");
    });
    expect(stop).toBe("done");
    expect(t.runtime.messages.map((message) => message.role)).toEqual(["user", "assistant", "user", "assistant"]);
  });

  test("recordStop writes the end once per turn", async () => {
    await using t = testRuntime({ turns: [fake.text("a")] });
    await turn(t.runtime, "go");
    t.runtime.recordStop("interrupted");
    const ends = readFileSync(t.runtime.session?.file as string, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line))
      .filter((record) => record.type === "end");
    expect(ends).toEqual([expect.objectContaining({ stopReason: "done" })]);
  });
});

describe("create", () => {
  test("the root must be an existing absolute folder", () => {
    expect(() => testRuntime({ root: "relative/path" })).toThrow(
      "The project folder must be an absolute path: relative/path",
    );
    expect(() => testRuntime({ root: "/no/such/garuda/folder" })).toThrow(
      "The project folder does not exist: /no/such/garuda/folder",
    );
  });
});
