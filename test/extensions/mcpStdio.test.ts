// MCP over stdio with a real server (test/fixtures/mcpServer.ts, on the official SDK) started
// through the real Executor inside the OS sandbox: lazy start, tools as mcp__server__tool with
// questions, project consents pinned by hash, a changed tool list asked about again, a crash
// mid-call that ends the call and not the session, and MCP prompts as commands.
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fake } from "../../src/model/fake.ts";
import type { AgentEvent } from "../../src/core-types/events.ts";
import { describeSandbox } from "../support/sandboxSupport.ts";
import {
  answering,
  BUN,
  FIXTURE_SERVER,
  NO_SANDBOX,
  notices,
  place,
  results,
  session,
  userText,
} from "../support/extensionHarness.ts";

/** The fixture server, told the project folder (it starts in /, as every local server does). */
const server = (where: { root: string }, extra: Record<string, unknown> = {}) => ({
  command: BUN,
  args: [FIXTURE_SERVER],
  env: { FIXTURE_MARK: "started.txt", FIXTURE_DIR: where.root },
  ...extra,
});
const mcpTools = (tools: readonly { name: string }[] | undefined) =>
  (tools ?? []).map((tool) => tool.name).filter((name) => name.startsWith("mcp__"));
const FIXTURE_TOOLS = ["mcp__fix__crash", "mcp__fix__echo", "mcp__fix__grow", "mcp__fix__sleep", "mcp__fix__touch"];

// Local servers run in the OS sandbox; without one (a developer's machine) these are skipped, and in CI they fail.
describeSandbox("MCP servers over stdio", () => {
  test(
    "start at the first turn, not at session creation; every call asks, showing the " + "server's read-only claim",
    async () => {
      using where = place();
      where.user(".garuda/mcp.json", JSON.stringify({ servers: { fix: server(where) } }));
      const approver = answering("session");
      await using s = await session(
        where,
        [
          fake.toolCall("mcp__fix__echo", { text: "one" }, { id: "call_1" }),
          fake.toolCall("mcp__fix__echo", { text: "two" }),
          fake.text("done"),
          fake.text("again"),
        ],
        approver,
      );
      expect(existsSync(join(where.root, "started.txt"))).toBe(false);
      const { events } = await s.prompt("echo twice");
      expect(existsSync(join(where.root, "started.txt"))).toBe(true);

      expect(mcpTools(s.model.requests[0]?.tools)).toEqual(FIXTURE_TOOLS);
      const call = events.find(
        (event): event is Extract<AgentEvent, { type: "tool_call" }> => event.type === "tool_call",
      );
      expect(call?.info).toEqual({ title: "fix/echo", kind: "other", locations: [] });
      // One question: "Allow for this session" covers the second call of the tool.
      expect(approver.asked).toHaveLength(1);
      expect(approver.asked[0]).toMatchObject({
        callId: "call_1",
        tool: "mcp__fix__echo",
        title: "fix/echo",
        sessionRules: ["mcp__fix__echo"],
      });
      expect(approver.asked[0]?.preview).toContain("The server says this tool only reads (Garuda cannot check that).");
      expect(results(events).map((result) => result.output)).toEqual([
        '<mcp_result server="fix" tool="echo">\necho: one\n</mcp_result>',
        '<mcp_result server="fix" tool="echo">\necho: two\n</mcp_result>',
      ]);
      await s.prompt("again");
      // The tool specs are the same bytes in every request once the servers are known.
      expect(new Set(s.model.requests.map((request) => JSON.stringify(request.tools))).size).toBe(1);
    },
  );

  test(
    "a custom agent listing mcp__fix__* gets the server's tools and is told their " +
      "names; its calls ask as the session's do",
    async () => {
      using where = place();
      where.user(".garuda/mcp.json", JSON.stringify({ servers: { fix: server(where) } }));
      where.user(
        ".garuda/agents/fixer.md",
        "---\ndescription: Uses the fixture\ntools: Read, mcp__fix__*\n---\nUse the fixture.",
      );
      const approver = answering("once");
      await using s = await session(
        where,
        [
          fake.toolCall("agent", { name: "fixer", prompt: "echo hi" }),
          fake.toolCall("mcp__fix__echo", { text: "hi" }),
          fake.text("echoed"),
          fake.text("done"),
        ],
        approver,
      );
      const { events } = await s.prompt("go");
      const child = s.model.requests[1];
      expect(mcpTools(child?.tools)).toEqual(FIXTURE_TOOLS);
      expect(child?.system).toContain(
        "Your tools: mcp__fix__crash, mcp__fix__echo, mcp__fix__grow, mcp__fix__sleep, mcp__fix__touch, read_file.",
      );
      expect(approver.asked.map((request) => request.tool)).toEqual(["mcp__fix__echo"]);
      expect(results(events).find((result) => result.parentCallId !== undefined)?.output).toContain("echo: hi");
    },
  );

  test(
    "an allow rule that names the tool lets it run without a question; a denied " + "call does not reach the server",
    async () => {
      using where = place();
      where.user(".garuda/mcp.json", JSON.stringify({ servers: { fix: server(where) } }));
      writeFileSync(where.paths.policy, JSON.stringify({ permissions: { allow: ["mcp__fix__echo"] } }));
      const approver = answering("deny");
      await using s = await session(
        where,
        [
          fake.toolCalls([
            { name: "mcp__fix__echo", input: { text: "hi" } },
            { name: "mcp__fix__touch", input: { path: "made.txt" } },
          ]),
          fake.text("ok"),
        ],
        approver,
      );
      const { events } = await s.prompt("go");
      expect(approver.asked.map((request) => request.tool)).toEqual(["mcp__fix__touch"]);
      expect(results(events).map((result) => result.status)).toEqual(["completed", "denied"]);
      expect(existsSync(join(where.root, "made.txt"))).toBe(false);
    },
  );

  test("a project server starts only after a yes; denied, nothing runs and the session goes on", async () => {
    using where = place();
    where.project(".garuda/mcp.json", JSON.stringify({ servers: { fix: server(where) } }));
    const approver = answering("deny");
    await using s = await session(where, [fake.text("no tools then")], approver);
    const { stop, events } = await s.prompt("hello");
    expect(stop).toBe("done");
    expect(approver.asked).toHaveLength(1);
    const question = approver.asked[0];
    expect(question?.callId).toBeUndefined();
    expect(question).toMatchObject({
      tool: "mcp_server.fix",
      title: "MCP server: fix",
      question: 'Start the project\'s MCP server "fix"?',
    });
    expect(question?.preview).toContain(`$ ${BUN} ${FIXTURE_SERVER}`);
    expect(question?.preview).toContain(`Environment: FIXTURE_DIR=${where.root}, FIXTURE_MARK=started.txt`);
    expect(notices(events)).toContain('The MCP server "fix" was not started: you said no.');
    expect(existsSync(join(where.root, "started.txt"))).toBe(false);
    expect(mcpTools(s.model.requests[0]?.tools)).toEqual([]);
  });

  test("remembered: pinned with its tool list; a changed tool list asks again, and no stops the server", async () => {
    using where = place();
    where.project(".garuda/mcp.json", JSON.stringify({ servers: { fix: server(where) } }));
    const first = answering("session");
    {
      await using s = await session(where, [fake.text("ok")], first);
      await s.prompt("hello");
      expect(mcpTools(s.model.requests[0]?.tools)).toEqual(FIXTURE_TOOLS);
    }
    const quiet = answering();
    {
      await using s = await session(where, [fake.text("ok")], quiet);
      await s.prompt("hello");
      expect(quiet.asked).toHaveLength(0);
      expect(mcpTools(s.model.requests[0]?.tools)).toEqual(FIXTURE_TOOLS);
    }
    // The same definition, but the server now offers one more tool: a "rug pull" asks again.
    writeFileSync(join(where.root, "extra-tool.txt"), "exfiltrate");
    const changed = answering("deny");
    {
      await using s = await session(where, [fake.text("ok")], changed);
      const { events } = await s.prompt("hello");
      expect(changed.asked).toHaveLength(1);
      expect(changed.asked[0]?.title).toBe("MCP server: fix (tools changed)");
      expect(changed.asked[0]?.preview).toContain("• exfiltrate: An extra tool: exfiltrate.");
      // Across sessions too, the question says what changed (the approved list is kept beside the pin).
      expect(changed.asked[0]?.preview).toContain("  Added: exfiltrate");
      expect(notices(events)).toContain('The MCP server "fix" was stopped: its tools changed and you said no.');
      expect(mcpTools(s.model.requests[0]?.tools)).toEqual([]);
    }
  });

  test(
    "a server that crashes mid-call: the call fails with a clear message, the " + "session goes on, its tools go away",
    async () => {
      using where = place();
      where.user(".garuda/mcp.json", JSON.stringify({ servers: { fix: server(where) } }));
      writeFileSync(where.paths.policy, JSON.stringify({ permissions: { allow: ["mcp__fix__*"] } }));
      await using s = await session(
        where,
        [fake.toolCall("mcp__fix__crash", {}), fake.text("It crashed."), fake.text("Still here.")],
        answering(),
      );
      const first = await s.prompt("crash it");
      expect(first.stop).toBe("done");
      const result = results(first.events)[0];
      expect(result?.status).toBe("failed");
      expect(result?.output).toContain('Error: the MCP server "fix" stopped during the call (it exited with code 3)');
      expect(result?.output).toContain("fatal: crash requested by the test");
      const second = await s.prompt("are you there?");
      expect(second.stop).toBe("done");
      expect(notices(second.events).join("\n")).toContain('The MCP server "fix" stopped (it exited with code 3');
      expect(mcpTools(s.model.requests[2]?.tools)).toEqual([]);
    },
  );

  test("a server that cannot start gives a notice; the others start", async () => {
    using where = place();
    where.user(
      ".garuda/mcp.json",
      JSON.stringify({ servers: { broken: { command: join(where.root, "no-such-server") }, fix: server(where) } }),
    );
    await using s = await session(where, [fake.text("ok")], answering());
    const { stop, events } = await s.prompt("hello");
    expect(stop).toBe("done");
    expect(notices(events).join("\n")).toContain(
      'The MCP server "broken" could not start: it exited with code 127. Its last output:',
    );
    expect(mcpTools(s.model.requests[0]?.tools)).toEqual(FIXTURE_TOOLS);
  });

  test("a changed tool list applies from the next turn: the user's at once, a project's after a new yes", async () => {
    using where = place();
    where.user(".garuda/mcp.json", JSON.stringify({ servers: { fix: server(where) } }));
    writeFileSync(where.paths.policy, JSON.stringify({ permissions: { allow: ["mcp__*"] } }));
    {
      await using s = await session(
        where,
        [fake.toolCall("mcp__fix__grow", {}), fake.text("grown"), fake.text("ok")],
        answering(),
      );
      await s.prompt("grow");
      expect(mcpTools(s.model.requests[1]?.tools)).toEqual(FIXTURE_TOOLS);
      const { events } = await s.prompt("next");
      expect(mcpTools(s.model.requests[2]?.tools)).toContain("mcp__fix__extra");
      expect(notices(events)).toContain('The MCP server "fix" changed its tools; the new list applies from this turn.');
    }

    using project = place();
    project.project(".garuda/mcp.json", JSON.stringify({ servers: { fix: server(project) } }));
    writeFileSync(project.paths.policy, JSON.stringify({ permissions: { allow: ["mcp__*"] } }));
    const approver = answering("once", "deny");
    await using s = await session(
      project,
      [fake.toolCall("mcp__fix__grow", {}), fake.text("grown"), fake.text("ok")],
      approver,
    );
    await s.prompt("grow");
    const { events } = await s.prompt("next");
    expect(approver.asked.map((request) => request.title)).toEqual([
      "MCP server: fix",
      "MCP server: fix (tools changed)",
    ]);
    expect(approver.asked[1]?.preview).toContain("Added: extra");
    expect(notices(events)).toContain('The MCP server "fix" was stopped: its tools changed and you said no.');
    expect(mcpTools(s.model.requests[2]?.tools)).toEqual([]);
  });

  test("a cancel while servers start ends the turn; the half-started server is stopped", async () => {
    using where = place();
    const tag = `hang-${crypto.randomUUID()}`;
    where.user(
      ".garuda/mcp.json",
      JSON.stringify({ servers: { mute: { command: "bash", args: ["-c", "sleep 300; true", tag] } } }),
    );
    await using s = await session(where, [fake.text("never")], answering());
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 500);
    const started = performance.now();
    const { stop } = await s.prompt("hello", controller.signal);
    expect(stop).toBe("cancelled");
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(s.model.requests).toHaveLength(0);
    if (process.platform === "linux") expect(processesWith(tag)).toEqual([]);
  });

  test("MCP prompts are commands: /server:prompt with its arguments", async () => {
    using where = place();
    where.user(".garuda/mcp.json", JSON.stringify({ servers: { fix: server(where) } }));
    await using s = await session(where, [fake.text("ok"), fake.text("reviewed")], answering());
    // Before the first turn the server is not running, yet its prompt resolves (it expands in the turn).
    expect(s.runtime.resolveCommand("/fix:review security")).toEqual({
      kind: "prompt",
      text: "/fix:review security",
      command: "fix:review",
    });
    await s.prompt("hello");
    expect(s.runtime.availableCommands()).toEqual([
      { name: "fix:review", description: "Review the code.", argumentHint: "<focus> [depth]" },
    ]);
    await s.prompt('/fix:review "error handling" deeply');
    expect(userText(s.model, 1)).toBe("Review the code with a focus on error handling, deeply.");
    const { events } = await s.prompt("/fix:review");
    expect(notices(events)).toContain("/fix:review did not run: it needs focus (arguments: <focus> [depth]).");
    expect(s.model.requests).toHaveLength(2);
  });
});

describe("MCP servers with no OS sandbox", () => {
  test(
    "a local server (even the user's) asks in every session before it runs on the " + "host; never remembered",
    async () => {
      using where = place();
      where.user(".garuda/mcp.json", JSON.stringify({ servers: { fix: server(where) } }));
      const approver = answering("once");
      {
        await using s = await session(where, [fake.text("ok")], approver, {}, NO_SANDBOX);
        await s.prompt("hello");
        expect(approver.asked).toHaveLength(1);
        expect(approver.asked[0]?.choices).toEqual(["once", "deny"]);
        expect(approver.asked[0]?.preview).toContain("Runs: directly on this computer (no OS sandbox)");
        expect(approver.asked[0]?.preview).toContain("⚠ No OS sandbox: the server would run directly on this computer");
        expect(mcpTools(s.model.requests[0]?.tools)).toEqual(FIXTURE_TOOLS);
      }
      const again = answering("deny");
      {
        await using s = await session(where, [fake.text("ok")], again, {}, NO_SANDBOX);
        const { events } = await s.prompt("hello");
        expect(again.asked).toHaveLength(1);
        expect(notices(events)).toContain('The MCP server "fix" was not started: you said no.');
      }
    },
  );

  test("a policy that requires the sandbox keeps local servers off", async () => {
    using where = place();
    where.user(".garuda/mcp.json", JSON.stringify({ servers: { fix: server(where) } }));
    writeFileSync(where.paths.policy, JSON.stringify({ requireSandbox: true }));
    const approver = answering("once");
    await using s = await session(where, [fake.text("ok")], approver, {}, NO_SANDBOX);
    const { events } = await s.prompt("hello");
    expect(approver.asked).toHaveLength(0);
    expect(notices(events)).toContain(
      'The MCP server "fix" was not started: there is no OS sandbox here, and the ' +
        "team policy does not let commands run outside it.",
    );
    expect(existsSync(join(where.root, "started.txt"))).toBe(false);
  });
});

/** Processes whose command line holds `tag` (Linux /proc). */
function processesWith(tag: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(tag)) found.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return found;
}

describeSandbox(
  "MCP servers die with the session",
  () => {
    test("closing the session ends a local server's process", async () => {
      using where = place();
      const tag = `--tag=${crypto.randomUUID()}`;
      where.user(
        ".garuda/mcp.json",
        JSON.stringify({ servers: { fix: { command: BUN, args: [FIXTURE_SERVER, tag] } } }),
      );
      const s = await session(where, [fake.text("ok")], answering());
      await s.prompt("start it");
      expect(processesWith(tag).length).toBeGreaterThan(0);
      await s.runtime.close();
      expect(processesWith(tag)).toEqual([]);
    });
  },
  "bwrap",
);

describeSandbox("MCP servers in the OS sandbox", () => {
  test("a local server can write the project but not the home folder", async () => {
    using where = place();
    where.user(".garuda/mcp.json", JSON.stringify({ servers: { fix: server(where) } }));
    writeFileSync(where.paths.policy, JSON.stringify({ permissions: { allow: ["mcp__fix__*"] } }));
    const outside = join(where.home, "escaped.txt");
    await using s = await session(
      where,
      [
        fake.toolCalls([
          { name: "mcp__fix__touch", input: { path: join(where.root, "inside.txt") } },
          { name: "mcp__fix__touch", input: { path: outside } },
        ]),
        fake.text("ok"),
      ],
      answering(),
    );
    const { events } = await s.prompt("touch");
    const [inside, escaped] = results(events);
    expect(inside?.status).toBe("completed");
    expect(existsSync(join(where.root, "inside.txt"))).toBe(true);
    expect(escaped?.status).toBe("failed");
    expect(escaped?.output).toContain(`could not write ${outside}`);
    expect(existsSync(outside)).toBe(false);
  });
});
