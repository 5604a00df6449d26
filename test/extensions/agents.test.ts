// Custom agents over real files: the model runs one through the agent tool; its calls show
// inside the agent's call ("Subagent: <name>", kind think), its questions reach the user, it
// only reads unless its file lists writing tools, and a project agent needs a consent.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fake } from "../../src/model/fake.ts";
import type { AgentEvent } from "../../src/core-types/events.ts";
import { answering, notices, place, results, session } from "../support/extensionHarness.ts";

const REVIEWER =
  "---\nname: reviewer\ndescription: Reviews code for bugs\nmodel: " +
  "claude-opus-5\n---\nYou review code. REVIEWER-INSTRUCTIONS\n";
const toolNames = (tools: readonly { name: string }[] | undefined) => (tools ?? []).map((tool) => tool.name).sort();

describe("custom agents", () => {
  test(
    "the model runs a user agent: read-only by default, its calls inside the " + "agent's call, its answer the result",
    async () => {
      using where = place();
      where.user(".garuda/agents/reviewer.md", REVIEWER);
      where.project("a.txt", "alpha\n");
      await using s = await session(
        where,
        [
          fake.toolCall("agent", { name: "reviewer", prompt: "Review a.txt" }, { id: "call_agent" }),
          fake.toolCall("read_file", { path: "a.txt" }, { id: "call_child_read" }),
          fake.text("a.txt looks fine (a.txt:1)."),
          fake.text("The reviewer found nothing."),
        ],
        answering(),
      );
      const { events } = await s.prompt("review the code");

      const parentSpec = s.model.requests[0]?.tools?.find((tool) => tool.name === "agent");
      expect(parentSpec?.description).toContain("Agents:\n- reviewer: Reviews code for bugs");
      expect(parentSpec?.description).not.toContain("REVIEWER-INSTRUCTIONS");
      const child = s.model.requests[1];
      expect(child?.system).toContain("REVIEWER-INSTRUCTIONS");
      expect(child?.system).toContain('You are "reviewer"');
      expect(toolNames(child?.tools)).toEqual(["find_definition", "glob", "grep", "read_file", "symbols"]);

      const calls = events.filter(
        (event): event is Extract<AgentEvent, { type: "tool_call" }> => event.type === "tool_call",
      );
      expect(calls[0]).toMatchObject({
        callId: "call_agent",
        tool: "agent",
        info: { title: "Subagent: reviewer", kind: "think" },
      });
      expect(calls[1]).toMatchObject({ callId: "call_child_read", tool: "read_file", parentCallId: "call_agent" });
      const agentResult = results(events).find((result) => result.callId === "call_agent");
      expect(agentResult?.status).toBe("completed");
      expect(agentResult?.output).toBe("a.txt looks fine (a.txt:1).");
      // The agent's file names a model: the child's requests go to it, the parent's stay on the session's.
      expect(s.opened).toEqual(["claude-sonnet-5", "claude-opus-5"]);
      expect(s.model.requests.map((request) => request.model)).toEqual([
        "claude-sonnet-5",
        "claude-opus-5",
        "claude-opus-5",
        "claude-sonnet-5",
      ]);
      expect(child?.thinking).toBe("adaptive");
      expect(notices(events).join("\n")).not.toContain("claude-opus-5");
    },
  );

  test(
    "a family name picks the newest model of that family, opened once per session; " +
      "no model or `inherit` means the session's",
    async () => {
      using where = place();
      where.user(".garuda/agents/quick.md", "---\ndescription: Quick looks\nmodel: haiku\n---\nBe quick.");
      where.user(".garuda/agents/same.md", "---\ndescription: Same model\nmodel: inherit\n---\nSame.");
      await using s = await session(
        where,
        [
          fake.toolCall("agent", { name: "quick", prompt: "one" }),
          fake.text("first look"),
          fake.toolCall("agent", { name: "quick", prompt: "two" }),
          fake.text("second look"),
          fake.toolCall("agent", { name: "same", prompt: "three" }),
          fake.text("same model"),
          fake.text("done"),
        ],
        answering(),
      );
      const { events } = await s.prompt("look twice");
      expect(results(events).map((result) => result.output)).toEqual(["first look", "second look", "same model"]);
      expect(s.opened).toEqual(["claude-sonnet-5", "claude-haiku-4-5"]);
      expect(s.model.requests.map((request) => request.model)).toEqual([
        "claude-sonnet-5",
        "claude-haiku-4-5",
        "claude-sonnet-5",
        "claude-haiku-4-5",
        "claude-sonnet-5",
        "claude-sonnet-5",
        "claude-sonnet-5",
      ]);
      // Haiku 4.5 has no adaptive thinking: the session's setting is not carried over to it.
      expect(s.model.requests[1]?.thinking).toBeUndefined();
      expect(s.model.requests[0]?.thinking).toBe("adaptive");
    },
  );

  test(
    "a model the team policy does not allow, or one without a key: the call fails " +
      "saying what to do, nothing runs, the session goes on",
    async () => {
      using where = place();
      where.user("no-managed-policy.json", JSON.stringify({ allowedModels: ["claude-sonnet-5"] }));
      where.user(".garuda/agents/big.md", "---\ndescription: Big\nmodel: claude-opus-5\n---\nThink hard.");
      where.user(".garuda/agents/routed.md", "---\ndescription: Routed\nmodel: openrouter/some/model\n---\nElsewhere.");
      await using s = await session(
        where,
        [
          fake.toolCall("agent", { name: "big", prompt: "go" }, { id: "call_big" }),
          fake.toolCall("agent", { name: "routed", prompt: "go" }, { id: "call_routed" }),
          fake.text("I will do it myself."),
        ],
        answering(),
      );
      const { stop, events } = await s.prompt("go");
      expect(stop).toBe("done");
      const [big, routed] = results(events);
      expect(big?.status).toBe("failed");
      expect(big?.output).toContain('the agent "big" asks for the model claude-opus-5, which cannot be used here');
      expect(big?.output).toContain('the team policy does not allow the model "claude-opus-5"');
      expect(big?.output).toContain("Remove `model:` from the agent's file");
      expect(routed?.output).toContain("Garuda has no key for openrouter/some/model (OPENROUTER_API_KEY)");
      // Three requests, all the parent's: no child ran.
      expect(s.model.requests.map((request) => request.model)).toEqual([
        "claude-sonnet-5",
        "claude-sonnet-5",
        "claude-sonnet-5",
      ]);
      expect(s.opened).toEqual(["claude-sonnet-5"]);
    },
  );

  test("an agent that lists writing tools gets them, and its writes ask the user (marked as the agent's)", async () => {
    using where = place();
    where.user(".garuda/agents/fixer.md", "---\ndescription: Fixes typos\ntools: Read, Write\n---\nFix typos.");
    const approver = answering("once");
    await using s = await session(
      where,
      [
        fake.toolCall("agent", { name: "fixer", prompt: "Create notes.txt" }, { id: "call_fixer" }),
        fake.toolCall("write_file", { path: "notes.txt", content: "fixed\n" }, { id: "call_write" }),
        fake.text("Wrote notes.txt."),
        fake.text("done"),
      ],
      approver,
    );
    await s.prompt("fix it");
    expect(toolNames(s.model.requests[1]?.tools)).toEqual(["read_file", "write_file"]);
    expect(approver.asked).toHaveLength(1);
    expect(approver.asked[0]).toMatchObject({ callId: "call_write", parentCallId: "call_fixer", tool: "write_file" });
    expect(readFileSync(join(where.root, "notes.txt"), "utf8")).toBe("fixed\n");
  });

  test(
    "a project agent runs only after a yes (denied: no child runs), pinned, asked " +
      "again after a change; the question shows its model",
    async () => {
      using where = place();
      const file = where.project(
        ".garuda/agents/mover.md",
        "---\ndescription: Moves files\nmodel: claude-opus-5\ntools: Read, Bash\n---\nMove everything. PROJECT-AGENT",
      );
      const no = answering("deny");
      {
        await using s = await session(
          where,
          [fake.toolCall("agent", { name: "mover", prompt: "go" }, { id: "call_mover" }), fake.text("ok")],
          no,
        );
        const { events } = await s.prompt("move");
        expect(no.asked).toHaveLength(1);
        expect(no.asked[0]?.callId).toBeUndefined();
        expect(no.asked[0]).toMatchObject({ title: "Project agent: mover" });
        expect(no.asked[0]?.preview).toContain("PROJECT-AGENT");
        expect(no.asked[0]?.preview).toContain("Tools: read_file, bash");
        expect(results(events)[0]?.output).toBe(
          'Error: the project agent "mover" did not run: you said no. Do the task another way, or ask the user.',
        );
        // The parent's two requests only: no child request was made.
        expect(s.model.requests).toHaveLength(2);
        // The question says which model the agent would run on.
        expect(no.asked[0]?.preview).toContain("Model: claude-opus-5");
        expect(no.asked[0]?.question).toContain("on that model");
      }
      const yes = answering("session");
      {
        await using s = await session(
          where,
          [fake.toolCall("agent", { name: "mover", prompt: "go" }), fake.text("moved"), fake.text("ok")],
          yes,
        );
        const { events } = await s.prompt("move");
        expect(results(events)[0]?.output).toBe("moved");
        expect(s.model.requests[1]?.system).toContain("PROJECT-AGENT");
        expect(s.model.requests[1]?.model).toBe("claude-opus-5");
      }
      const trust = JSON.parse(readFileSync(where.paths.trust, "utf8"));
      expect(Object.keys(trust.agents[where.root])).toEqual(["mover"]);
      const quiet = answering();
      {
        await using s = await session(
          where,
          [fake.toolCall("agent", { name: "mover", prompt: "go" }), fake.text("moved"), fake.text("ok")],
          quiet,
        );
        await s.prompt("move");
        expect(quiet.asked).toHaveLength(0);
      }
      // A changed file is a new question.
      writeFileSync(
        file,
        "---\ndescription: Moves files\ntools: Read, Bash\n---\nMove everything, then " +
          "delete the originals. PROJECT-AGENT",
      );
      const changed = answering("deny");
      {
        await using s = await session(
          where,
          [fake.toolCall("agent", { name: "mover", prompt: "go" }), fake.text("ok")],
          changed,
        );
        await s.prompt("move");
        expect(changed.asked).toHaveLength(1);
        expect(changed.asked[0]?.preview).toContain("then delete the originals");
        expect(s.model.requests).toHaveLength(2);
      }
    },
  );

  test("a listed tool the session does not have is left out with a notice, and not named to the agent", async () => {
    using where = place();
    where.user(
      ".garuda/agents/odd.md",
      "---\ndescription: Odd\ntools: Read, frobnicate, mcp__gh__get_issue\n---\nODD-AGENT",
    );
    await using s = await session(
      where,
      [fake.toolCall("agent", { name: "odd", prompt: "go" }), fake.text("went"), fake.text("ok")],
      answering(),
    );
    const { events } = await s.prompt("go");
    expect(notices(events).join("\n")).toContain('The agent "odd" (');
    expect(notices(events).join("\n")).toContain('lists "frobnicate", which this session does not have; left out.');
    // An MCP tool is known only once its server runs: at the call, the agent is told only what it gets, and the user
    // why.
    expect(s.model.requests[1]?.system).toContain("Your tools: read_file. ");
    expect(toolNames(s.model.requests[1]?.tools)).toEqual(["read_file"]);
    expect(notices(events).join("\n")).toContain('"odd" lists "mcp__gh__get_issue", which this session does not have');
  });

  test("the user's agent wins a clash; agents cannot start agents", async () => {
    using where = place();
    where.user(".garuda/agents/helper.md", "---\ndescription: Mine\ntools: Read, agent, explore\n---\nUSER-AGENT");
    where.project(".garuda/agents/helper.md", "---\ndescription: Theirs\n---\nPROJECT-AGENT");
    const approver = answering();
    await using s = await session(
      where,
      [fake.toolCall("agent", { name: "helper", prompt: "help" }), fake.text("helped"), fake.text("ok")],
      approver,
    );
    await s.prompt("help");
    expect(approver.asked).toHaveLength(0);
    expect(s.model.requests[1]?.system).toContain("USER-AGENT");
    expect(toolNames(s.model.requests[1]?.tools)).toEqual(["read_file"]);
    expect(existsSync(where.paths.trust)).toBe(false);
  });
});
