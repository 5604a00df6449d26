// The tool registry on its own: specs for the model, and the call pipeline (events, hooks,
// permission, errors) with a plain CallContext.
import { afterAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { z } from "zod";
import { createPermissionEngine } from "../../src/permission/engine.ts";
import type { AgentEvent } from "../../src/core-types/events.ts";
import type { ToolHooks } from "../../src/tools/toolHooks.ts";
import type { AuditEvent } from "../../src/store/auditEvents.ts";
import { type CallContext, ToolRegistry } from "../../src/tools/registry.ts";
import type { Tool } from "../../src/tools/types.ts";
import { fakeExecutor, readTool, scriptedApprover, writeTool } from "../support/runtimeHelpers.ts";
import { makeTempDir } from "../support/tempDir.ts";

// A real folder: the registry refuses every call once the root is gone.
const ROOT = makeTempDir("garuda-registry-", { real: true });
afterAll(() => rmSync(ROOT, { recursive: true, force: true }));

function context(patch: Partial<CallContext> = {}): CallContext & { events: AgentEvent[]; audited: AuditEvent[] } {
  const events: AgentEvent[] = [];
  const audited: AuditEvent[] = [];
  return {
    root: ROOT,
    home: "/home/u",
    mode: "build",
    signal: new AbortController().signal,
    executor: fakeExecutor(),
    sandbox: null,
    engine: createPermissionEngine({ root: ROOT, home: "/home/u", sandboxAvailable: true }),
    emit: (event) => events.push(event),
    beforeWrite: async () => {},
    audit: { record: (event) => audited.push(event) },
    events,
    audited,
    ...patch,
  };
}

describe("specs", () => {
  test("sorted by name, JSON schema from zod without $schema, the same array every time", () => {
    const registry = new ToolRegistry([writeTool("zeta"), readTool("alpha")]);
    const specs = registry.specs();
    expect(specs.map((spec) => spec.name)).toEqual(["alpha", "zeta"]);
    expect(specs[0]).toEqual({
      name: "alpha",
      description: "Reads a file (alpha).",
      inputSchema: {
        type: "object",
        properties: { path: { type: "string", description: "A path relative to the project root." } },
        required: ["path"],
      },
    });
    expect(registry.specs()).toBe(specs);
    expect(JSON.stringify(new ToolRegistry([readTool("alpha"), writeTool("zeta")]).specs())).toBe(
      JSON.stringify(specs),
    );
  });

  test(
    "made at the first specs() call, not with the registry (session/new does not " + "wait for zod's JSON Schemas)",
    () => {
      // A schema JSON Schema cannot express: writing it throws, so the registry shows when it is written.
      const unwritable = { ...readTool("big"), input: z.object({ n: z.bigint() }) } as unknown as Tool;
      const registry = new ToolRegistry([readTool("alpha"), unwritable]);
      expect(registry.names()).toEqual(["alpha", "big"]);
      expect(registry.get("big")).toBe(unwritable);
      expect(() => registry.specs()).toThrow(/BigInt/i);
    },
  );

  test("two tools of one name are a mistake", () => {
    expect(() => new ToolRegistry([readTool("a"), readTool("a")])).toThrow('Two tools are named "a".');
  });
});

describe("run", () => {
  test("tool_call comes first; progress carries the callId; the audit log hears request and result", async () => {
    const chatty: Tool<{ path: string }> = {
      ...readTool("chatty"),
      run: async (_input, ctx) => {
        ctx.progress("halfway");
        return { output: "done", summary: "1 file" };
      },
    };
    const ctx = context();
    const outcome = await new ToolRegistry([chatty]).run({ id: "toolu_9", name: "chatty", input: { path: "a" } }, ctx);
    expect(outcome).toMatchObject({
      callId: "toolu_9",
      status: "completed",
      output: "done",
      summary: "1 file",
      isError: false,
      cancelled: false,
    });
    expect(ctx.events).toEqual([
      {
        type: "tool_call",
        callId: "toolu_9",
        tool: "chatty",
        input: { path: "a" },
        info: { title: "Read a", kind: "read", locations: [{ path: `${ROOT}/a` }] },
      },
      { type: "tool_start", callId: "toolu_9" },
      { type: "tool_progress", callId: "toolu_9", text: "halfway" },
      { type: "tool_result", callId: "toolu_9", status: "completed", output: "done", summary: "1 file" },
    ]);
    expect(ctx.audited).toEqual([
      { type: "tool_request", callId: "toolu_9", tool: "chatty", readOnly: true, title: "Read a", target: "read a" },
      { type: "tool_result", callId: "toolu_9", tool: "chatty", readOnly: true, ok: true, summary: "1 file" },
    ]);
  });

  test(
    "the permission request: callId, title from plan().info, and a diff when the " + "tool gives no preview",
    async () => {
      const approver = scriptedApprover("once");
      const ctx = context({ approver });
      await new ToolRegistry([writeTool()]).run(
        { id: "toolu_w", name: "write", input: { path: "a.txt", content: "one\ntwo" } },
        { ...ctx, beforeWrite: async () => {} },
      );
      expect(approver.asked[0]).toMatchObject({
        callId: "toolu_w",
        title: "Write a.txt",
        change: { path: "a.txt", oldText: null, newText: "one\ntwo" },
      });
      expect(approver.asked[0]?.preview).toBe("--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1,2 @@\n+one\n+two");
    },
  );

  test("tool_start: after the answer when the call asks, never for a call that does not run", async () => {
    const seenWhenAsked: string[][] = [];
    const events: AgentEvent[] = [];
    const answering = (choice: "once" | "deny") => ({
      ask: async () => {
        seenWhenAsked.push(events.map((event) => event.type));
        return choice;
      },
    });
    const ctx = {
      ...context({ approver: answering("once"), emit: (event: AgentEvent) => events.push(event) }),
      beforeWrite: async () => {},
    };
    await new ToolRegistry([writeTool()]).run(
      { id: "toolu_yes", name: "write", input: { path: "a.txt", content: "x" } },
      ctx,
    );
    expect(seenWhenAsked[0]).toEqual(["tool_call"]);
    expect(events.map((event) => event.type)).toEqual(["tool_call", "tool_start", "tool_result"]);
    events.length = 0;
    await new ToolRegistry([writeTool()]).run(
      { id: "toolu_no", name: "write", input: { path: "a.txt", content: "x" } },
      { ...ctx, approver: answering("deny") },
    );
    expect(events.map((event) => event.type)).toEqual(["tool_call", "tool_result"]);
  });

  test("a preToolUse block is a denial with the hook's reason; the permission engine is not asked", async () => {
    const approver = scriptedApprover("once");
    const hooks: ToolHooks = {
      pre: async () => ({ block: "A hook blocked this call: no writes on Fridays", warnings: ["hook warned"] }),
      post: async () => ({}),
    };
    const ctx = context({ approver, hooks });
    const outcome = await new ToolRegistry([writeTool()]).run(
      { id: "toolu_1", name: "write", input: { path: "a", content: "" } },
      ctx,
    );
    expect(outcome).toMatchObject({ status: "denied", output: "A hook blocked this call: no writes on Fridays" });
    expect(approver.asked).toHaveLength(0);
    expect(ctx.events.map((event) => event.type)).toEqual(["tool_call", "notice", "tool_result"]);
  });

  test("postToolUse feedback is appended to the result; hooks see the request and the input", async () => {
    const seen: unknown[] = [];
    const hooks: ToolHooks = {
      pre: async (call) => {
        seen.push(call.request.callId, call.input);
        return {};
      },
      post: async (_call, result) => ({ feedback: [`lint: ${result.output} has a typo`] }),
    };
    const ctx = context({ hooks });
    const outcome = await new ToolRegistry([readTool("r", async () => ({ output: "teh" }))]).run(
      { id: "toolu_2", name: "r", input: { path: "a" } },
      ctx,
    );
    expect(seen).toEqual(["toolu_2", { path: "a" }]);
    expect(outcome.output).toBe("teh\n\n<hook_feedback>\nlint: teh has a typo\n</hook_feedback>");
  });

  test("plan mode: a write is denied with the engine's reason, no question", async () => {
    const approver = scriptedApprover("once");
    const ctx = context({ approver, mode: "plan" });
    const outcome = await new ToolRegistry([writeTool()]).run(
      { id: "toolu_3", name: "write", input: { path: "a", content: "" } },
      ctx,
    );
    expect(outcome.status).toBe("denied");
    expect(outcome.output).toStartWith("Permission denied: ");
    expect(approver.asked).toHaveLength(0);
  });

  test(
    "a call sure to fail (cannotRun) asks no one and gives the model its error; a " + "rule's refusal still wins",
    async () => {
      const doomed: Tool<{ path: string; content: string }> = {
        ...writeTool("doomed", async () => {
          throw new Error("run() must not be reached");
        }),
        plan: (input, ctx) => ({
          ...writeTool("doomed").plan(input, ctx),
          permission: {
            tool: "doomed",
            readOnly: false,
            target: { kind: "path", path: input.path, access: "write" },
            preview: "",
          },
          cannotRun: "You have not read a.txt in this session.",
        }),
      };
      const approver = scriptedApprover("once");
      const outcome = await new ToolRegistry([doomed]).run(
        { id: "toolu_9", name: "doomed", input: { path: "a.txt", content: "x" } },
        context({ approver }),
      );
      expect(approver.asked).toHaveLength(0);
      expect(outcome).toMatchObject({ status: "failed", output: "You have not read a.txt in this session." });
      const planned = await new ToolRegistry([doomed]).run(
        { id: "toolu_10", name: "doomed", input: { path: "a.txt", content: "x" } },
        context({ approver, mode: "plan" }),
      );
      expect(planned.status).toBe("denied");
      expect(planned.output).toStartWith("Permission denied: ");
      // Control: the same tool without cannotRun is put to the user.
      const asked = await new ToolRegistry([writeTool("doomed", async () => ({ output: "ok" }))]).run(
        { id: "toolu_11", name: "doomed", input: { path: "a.txt", content: "x" } },
        context({ approver }),
      );
      expect(asked.output).toBe("ok");
      expect(approver.asked).toHaveLength(1);
    },
  );

  test("an input the schema rejects never reaches plan() or the tool", async () => {
    let planned = 0;
    const strict: Tool<{ n: number }> = {
      name: "strict",
      description: "d",
      input: z.object({ n: z.number().int().min(1) }),
      readOnly: true,
      plan: (input) => {
        planned++;
        return {
          input,
          info: { title: "strict", kind: "other", locations: [] },
          permission: { tool: "strict", readOnly: true, target: { kind: "input" }, preview: "" },
        };
      },
      run: async () => ({ output: "ran" }),
    };
    const ctx = context();
    const outcome = await new ToolRegistry([strict]).run({ id: "toolu_4", name: "strict", input: { n: 0 } }, ctx);
    expect(outcome.status).toBe("failed");
    expect(outcome.output).toContain("Too small: expected number to be >=1");
    expect(outcome.output).toEndWith("Fix the input and call strict again.");
    expect(planned).toBe(0);
  });
});

describe("a project folder that vanished", () => {
  test(
    "every call is refused with the reason, nothing runs and no one is asked " +
      "(negative control: the same call runs while the folder is there)",
    async () => {
      const root = makeTempDir("garuda-vanish-", { real: true });
      const ran: string[] = [];
      const tool = writeTool("write", async (input) => {
        ran.push(input.path);
        return { output: "wrote" };
      });
      const approver = scriptedApprover("once", "once");
      const ctx = () =>
        context({ root, approver, engine: createPermissionEngine({ root, home: "/home/u", sandboxAvailable: true }) });
      const registry = new ToolRegistry([tool]);

      const control = await registry.run(
        { id: "toolu_a", name: "write", input: { path: "a.txt", content: "x" } },
        ctx(),
      );
      expect(control.status).toBe("completed");
      expect(ran).toEqual(["a.txt"]);

      rmSync(root, { recursive: true });
      const refused = await registry.run(
        { id: "toolu_b", name: "write", input: { path: "b.txt", content: "x" } },
        ctx(),
      );
      expect(refused.status).toBe("failed");
      expect(refused.output).toContain(`The project folder ${root} no longer exists`);
      expect(ran).toEqual(["a.txt"]);
      expect(approver.asked).toHaveLength(1);
    },
  );
});
