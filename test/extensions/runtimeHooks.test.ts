// The Runtime's side of the extensions: commands expanded in the turn (DeferredCommand) and
// tools that join at a turn (TurnExtensions), with a FakeModelClient and no processes.
import { describe, expect, test } from "bun:test";
import { z } from "zod";
import { fake } from "../../src/model/fake.ts";
import type { CommandProvider, DeferredCommand, TurnExtensions } from "../../src/runtime/services.ts";
import type { Tool } from "../../src/tools/types.ts";
import { ofType, testRuntime, turn } from "../support/runtimeHelpers.ts";
import { answering, notices, place, session, userText } from "../support/extensionHarness.ts";

function provider(deferred: DeferredCommand): CommandProvider {
  return {
    resolve: (name, args) =>
      name === "later"
        ? {
            expand: (signal) =>
              deferred.expand(signal).then((made) => ("text" in made ? { text: `${made.text} ${args}` } : made)),
          }
        : undefined,
    list: () => [{ name: "later", description: "Made in the turn" }],
  };
}

function extraTool(name: string): Tool {
  return {
    name,
    description: `The ${name} tool.`,
    input: z.object({}),
    readOnly: true,
    plan: (input) => ({
      input,
      info: { title: name, kind: "other", locations: [] },
      permission: { tool: name, readOnly: true, target: { kind: "input" }, preview: "" },
    }),
    run: async () => ({ output: `${name} ran` }),
  };
}

describe("commands expanded in the turn", () => {
  test("resolveCommand hands back the typed text; runTurn expands it before the model sees it", async () => {
    await using t = testRuntime({
      turns: [fake.text("ok")],
      commands: provider({ expand: async () => ({ text: "Expanded:" }) }),
    });
    expect(t.runtime.resolveCommand("/later now")).toEqual({ kind: "prompt", text: "/later now", command: "later" });
    const { stop } = await turn(t.runtime, "/later now");
    expect(stop).toBe("done");
    expect(userText(t.model, 0)).toBe("Expanded: now");
  });

  test("refused: a notice, no model request, no session record of a prompt", async () => {
    await using t = testRuntime({
      turns: [fake.text("never")],
      commands: provider({ expand: async () => ({ refused: "/later did not run: no." }) }),
    });
    const { stop, events } = await turn(t.runtime, "/later now");
    expect(stop).toBe("done");
    expect(ofType(events, "notice").map((event) => event.text)).toEqual(["/later did not run: no."]);
    expect(t.model.requests).toHaveLength(0);
    expect(t.runtime.messages).toHaveLength(0);
  });

  test("a cancel while it expands ends the turn as cancelled", async () => {
    const controller = new AbortController();
    const deferred: DeferredCommand = {
      expand: (signal) =>
        new Promise((resolve) => {
          signal.addEventListener("abort", () => resolve({ refused: "cancelled" }), { once: true });
          controller.abort();
        }),
    };
    await using t = testRuntime({ turns: [fake.text("never")], commands: provider(deferred) });
    const { stop } = await turn(t.runtime, "/later", controller.signal);
    expect(stop).toBe("cancelled");
    expect(t.model.requests).toHaveLength(0);
  });
});

describe("tools that join at a turn", () => {
  test("the same array keeps the same specs; a new one is used from that turn; a failure is a notice", async () => {
    const lists: Array<readonly Tool[] | Error> = [];
    const first = [extraTool("late")];
    lists.push(first, first, [extraTool("late"), extraTool("later")], new Error("server exploded"));
    const extensions: TurnExtensions = {
      beforeTurn: async () => {
        const next = lists.shift();
        if (next instanceof Error) throw next;
        return next ?? [];
      },
    };
    await using t = testRuntime({
      turns: [fake.toolCall("late", {}), fake.text("1"), fake.text("2"), fake.text("3"), fake.text("4")],
      extensions,
    });
    const names = (index: number) => (t.model.requests[index]?.tools ?? []).map((tool) => tool.name);
    const one = await turn(t.runtime, "a");
    expect(ofType(one.events, "tool_result")[0]?.output).toBe("late ran");
    await turn(t.runtime, "b");
    expect(names(0)).toEqual(["late", "read", "write"]);
    expect(JSON.stringify(t.model.requests[2]?.tools)).toBe(JSON.stringify(t.model.requests[0]?.tools));
    await turn(t.runtime, "c");
    expect(names(3)).toEqual(["late", "later", "read", "write"]);
    const failed = await turn(t.runtime, "d");
    expect(ofType(failed.events, "notice").map((event) => event.text)).toEqual([
      "Extensions could not start: server exploded",
    ]);
    expect(names(4)).toEqual(["late", "later", "read", "write"]);
  });
});

describe("consents and modes", () => {
  test(
    "a project command can be approved and run in plan mode (a consent changes " + "nothing in the project)",
    async () => {
      using where = place();
      where.project(".garuda/commands/plan-it.md", "Plan the refactor of $ARGUMENTS.");
      const approver = answering("once");
      await using s = await session(where, [fake.text("a plan")], approver);
      await s.runtime.setMode("plan");
      const { events } = await s.prompt("/plan-it the parser");
      expect(approver.asked).toHaveLength(1);
      expect(notices(events).join("\n")).not.toContain("did not run");
      expect(userText(s.model, 0)).toContain("Plan the refactor of the parser.");
    },
  );
});
