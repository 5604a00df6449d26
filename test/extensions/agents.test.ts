// Custom agents over real files: the model runs one through the agent tool; its calls show
// inside the agent's call ("Subagent: <name>", kind think), its questions reach the user, it
// only reads unless its file lists writing tools, and a project agent needs a consent.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fake } from "../../src/model/fake.ts";
import type { AgentEvent } from "../../src/runtime/events.ts";
import { answering, notices, place, results, session } from "../support/extensionHarness.ts";

const REVIEWER = "---\nname: reviewer\ndescription: Reviews code for bugs\nmodel: claude-opus-5\n---\nYou review code. REVIEWER-INSTRUCTIONS\n";
const toolNames = (tools: readonly { name: string }[] | undefined) => (tools ?? []).map((tool) => tool.name).sort();

describe("custom agents", () => {
  test("the model runs a user agent: read-only by default, its calls inside the agent's call, its answer the result", async () => {
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

    const calls = events.filter((event): event is Extract<AgentEvent, { type: "tool_call" }> => event.type === "tool_call");
    expect(calls[0]).toMatchObject({ callId: "call_agent", tool: "agent", info: { title: "Subagent: reviewer", kind: "think" } });
    expect(calls[1]).toMatchObject({ callId: "call_child_read", tool: "read_file", parentCallId: "call_agent" });
    const agentResult = results(events).find((result) => result.callId === "call_agent");
    expect(agentResult?.status).toBe("completed");
    expect(agentResult?.output).toBe("a.txt looks fine (a.txt:1).");
    // A user agent may name a model; this version runs it on the session's, and says so.
    expect(notices(events).join("\n")).toContain('The agent "reviewer" asks for the model claude-opus-5; custom agents run on the session\'s model (claude-sonnet-5)');
  });

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

  test("a project agent runs only after a yes (denied: no child runs), pinned, asked again after a change; it cannot choose a model", async () => {
    using where = place();
    const file = where.project(".garuda/agents/mover.md", "---\ndescription: Moves files\nmodel: claude-opus-5\ntools: Read, Bash\n---\nMove everything. PROJECT-AGENT");
    const no = answering("deny");
    {
      await using s = await session(where, [fake.toolCall("agent", { name: "mover", prompt: "go" }, { id: "call_mover" }), fake.text("ok")], no);
      const { events } = await s.prompt("move");
      expect(no.asked).toHaveLength(1);
      expect(no.asked[0]?.callId).toBeUndefined();
      expect(no.asked[0]).toMatchObject({ title: "Project agent: mover" });
      expect(no.asked[0]?.preview).toContain("PROJECT-AGENT");
      expect(no.asked[0]?.preview).toContain("Tools: read_file, bash");
      expect(results(events)[0]?.output).toBe('Error: the project agent "mover" did not run: you said no. Do the task another way, or ask the user.');
      // The parent's two requests only: no child request was made.
      expect(s.model.requests).toHaveLength(2);
      expect(notices(events).join("\n")).toContain('The project agent "mover" asks for the model claude-opus-5; a project cannot choose the model');
    }
    const yes = answering("session");
    {
      await using s = await session(where, [fake.toolCall("agent", { name: "mover", prompt: "go" }), fake.text("moved"), fake.text("ok")], yes);
      const { events } = await s.prompt("move");
      expect(results(events)[0]?.output).toBe("moved");
      expect(s.model.requests[1]?.system).toContain("PROJECT-AGENT");
    }
    const trust = JSON.parse(readFileSync(where.paths.trust, "utf8"));
    expect(Object.keys(trust.agents[where.root])).toEqual(["mover"]);
    const quiet = answering();
    {
      await using s = await session(where, [fake.toolCall("agent", { name: "mover", prompt: "go" }), fake.text("moved"), fake.text("ok")], quiet);
      await s.prompt("move");
      expect(quiet.asked).toHaveLength(0);
    }
    // A changed file is a new question.
    writeFileSync(file, "---\ndescription: Moves files\ntools: Read, Bash\n---\nMove everything, then delete the originals. PROJECT-AGENT");
    const changed = answering("deny");
    {
      await using s = await session(where, [fake.toolCall("agent", { name: "mover", prompt: "go" }), fake.text("ok")], changed);
      await s.prompt("move");
      expect(changed.asked).toHaveLength(1);
      expect(changed.asked[0]?.preview).toContain("then delete the originals");
      expect(s.model.requests).toHaveLength(2);
    }
  });

  test("the user's agent wins a clash; agents cannot start agents", async () => {
    using where = place();
    where.user(".garuda/agents/helper.md", "---\ndescription: Mine\ntools: Read, agent, explore\n---\nUSER-AGENT");
    where.project(".garuda/agents/helper.md", "---\ndescription: Theirs\n---\nPROJECT-AGENT");
    const approver = answering();
    await using s = await session(where, [fake.toolCall("agent", { name: "helper", prompt: "help" }), fake.text("helped"), fake.text("ok")], approver);
    await s.prompt("help");
    expect(approver.asked).toHaveLength(0);
    expect(s.model.requests[1]?.system).toContain("USER-AGENT");
    expect(toolNames(s.model.requests[1]?.tools)).toEqual(["read_file"]);
    expect(existsSync(where.paths.trust)).toBe(false);
  });
});
