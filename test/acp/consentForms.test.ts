// Issue 32 items 3 and 7 over ACP, through the compiled binary and the SDK's client: the
// questions that are no tool call become forms where the editor has forms — a sandboxed
// command's new host (once, or for the session with the rule it adds shown), project settings
// that loosen safety — and stay permission questions where it has not. A value never offered
// is a deny; a form withdrawn (its command gave up) is cancelled at the editor and its late
// answer is not read.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type * as acp from "@agentclientprotocol/sdk";
import { garudaBinary } from "../support/garudaBinary.ts";
import { type EditorAnswers, finishAgent, startFormsSession } from "../support/acpAgent.ts";
import { type MockAnthropic, type MockResponse, startMockAnthropic } from "../support/mockAnthropic.ts";
import { until } from "../support/processes.ts";
import { makeTempDir } from "../support/tempDir.ts";

let work = "";
let binary = "";

beforeAll(
  async () => {
    work = makeTempDir("garuda-acp-consent-forms-");
    binary = await garudaBinary();
  },
  { timeout: 180_000 },
);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

const HOST = "garuda-test.invalid";
/** A command that reaches HOST through the sandbox's proxy, and gives up after `seconds`. */
const curl = (seconds: number) => `curl -sS -m ${seconds} http://${HOST}/ >/dev/null 2>&1; echo curl-exit=$?`;

/** Two commands in a row that reach HOST, then "ok". */
function twoFetches(): MockResponse[] {
  return [
    { steps: [{ type: "tool_use", name: "bash", id: "toolu_curl1", input: { command: curl(5) } }] },
    { steps: [{ type: "tool_use", name: "bash", id: "toolu_curl2", input: { command: curl(5) } }] },
    { steps: [{ type: "text", text: "ok" }] },
  ];
}

async function session(
  mock: MockAnthropic,
  forms: boolean,
  answers: EditorAnswers,
  setUp?: (root: string) => void,
  place?: { root: string; home: string },
) {
  const root = place?.root ?? makeTempDir("root-", { under: work });
  setUp?.(root);
  return startFormsSession(binary, mock, work, forms, answers, { root, ...(place && { home: place.home }) });
}

const finish = finishAgent;

/** The answers the audit log records to the network questions ("once", "session", "deny"), in order. */
function networkAnswers(home: string): string[] {
  const dir = join(home, ".garuda", "audit");
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .flatMap((entry) => readFileSync(join(entry.parentPath, entry.name), "utf8").split("\n"))
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as { type?: string; tool?: string; choice?: string })
    .flatMap((record) => (record.type === "answer" && record.tool === "network" ? [record.choice ?? ""] : []));
}

const accept = (choice: unknown): acp.CreateElicitationResponse => ({ action: "accept", content: { choice } });

describe("consents as forms, the compiled binary", () => {
  test("a new host with forms: a form of its real choices; for the session asks once, " +
    "once asks each time", async () => {
    await using mock = startMockAnthropic({
      apiKey: "sk-ant-process-test",
      script: [...twoFetches(), ...twoFetches()],
    });
    const answers: acp.CreateElicitationResponse[] = [accept("session"), accept("once"), accept("once")];
    const agent = await session(mock, true, { elicit: () => answers.shift() ?? { action: "decline" } });
    expect((await agent.prompt("fetch twice")).stopReason).toBe("end_turn");
    // One form for both commands: "for this session" added the rule it showed.
    expect(agent.elicitations).toHaveLength(1);
    const form = agent.elicitations[0] as acp.CreateElicitationRequest & Record<string, unknown>;
    expect(form.mode).toBe("form");
    expect(form.sessionId).toBe(agent.sessionId);
    // No tool call asks: the form is an entry of the thread, not a fake tool call.
    expect(form.toolCallId).toBeUndefined();
    expect(String(form.message)).toStartWith(`Network: ${HOST}:80\n\nAllow a sandboxed command to reach this host`);
    expect(String(form.message)).toContain(`wants to connect to ${HOST} (port 80)`);
    expect(form.requestedSchema).toEqual({
      type: "object",
      properties: {
        choice: {
          type: "string",
          title: "Allow",
          oneOf: [
            { const: "once", title: "Allow once" },
            { const: "session", title: "Allow for this session", description: `Adds the rule network(${HOST})` },
            {
              const: "lasting",
              title: "Remember for this project",
              description: `Allows ${HOST} in every session in this project (kept in ~/.garuda/trust.json)`,
            },
          ],
        },
      },
      required: ["choice"],
    });
    // No fake tool call and no permission request for the host.
    expect(agent.permissions.filter((p) => p.toolCall.title?.startsWith("Network:"))).toEqual([]);
    expect(
      agent.updates.some((u) => u.sessionUpdate === "tool_call" && u.toolCallId.startsWith("garuda-question-")),
    ).toBe(false);

    // In a new session "once" holds for one question only: each command asks.
    const second = await session(mock, true, { elicit: () => answers.shift() ?? { action: "decline" } });
    expect((await second.prompt("fetch twice again")).stopReason).toBe("end_turn");
    expect(second.elicitations).toHaveLength(2);
    await finish(agent);
    await finish(second);
    expect(networkAnswers(agent.home)).toEqual(["session"]);
    expect(networkAnswers(second.home)).toEqual(["once", "once"]);
  }, 90_000);

  test("remember for this project: kept in trust.json, and the next session in the project does not ask", async () => {
    await using mock = startMockAnthropic({
      apiKey: "sk-ant-process-test",
      script: [...twoFetches(), ...twoFetches()],
    });
    const agent = await session(mock, true, { elicit: () => accept("lasting") });
    expect((await agent.prompt("fetch twice")).stopReason).toBe("end_turn");
    expect(agent.elicitations).toHaveLength(1);
    await finish(agent);
    const trust = JSON.parse(readFileSync(join(agent.home, ".garuda", "trust.json"), "utf8")) as {
      network?: Record<string, string[]>;
    };
    expect(Object.values(trust.network ?? {})).toEqual([[HOST]]);
    expect(networkAnswers(agent.home)).toEqual(["session"]);
    // Another session in the same project and home: the host is on the allowlist, nothing asks.
    const next = await session(mock, true, { elicit: () => ({ action: "decline" }) }, undefined, {
      root: agent.root,
      home: agent.home,
    });
    expect((await next.prompt("fetch twice again")).stopReason).toBe("end_turn");
    expect(next.elicitations).toHaveLength(0);
    await finish(next);
  }, 90_000);

  test("a value never offered, a wrong type, a decline: each a deny", async () => {
    await using mock = startMockAnthropic({
      apiKey: "sk-ant-process-test",
      script: [
        { steps: [{ type: "tool_use", name: "bash", id: "toolu_a", input: { command: curl(5) } }] },
        { steps: [{ type: "tool_use", name: "bash", id: "toolu_b", input: { command: curl(6) } }] },
        { steps: [{ type: "tool_use", name: "bash", id: "toolu_c", input: { command: curl(7) } }] },
        { steps: [{ type: "text", text: "ok" }] },
      ],
    });
    const answers: acp.CreateElicitationResponse[] = [
      // "remember" is no choice this question offered.
      accept("remember"),
      accept(["session"]),
      { action: "decline" },
    ];
    const agent = await session(mock, true, { elicit: () => answers.shift() ?? { action: "decline" } });
    expect((await agent.prompt("fetch three times")).stopReason).toBe("end_turn");
    expect(agent.elicitations).toHaveLength(3);
    await finish(agent);
    expect(networkAnswers(agent.home)).toEqual(["deny", "deny", "deny"]);
  }, 90_000);

  test("a form withdrawn because its command gave up: cancelled at the editor, its late answer not read", async () => {
    await using mock = startMockAnthropic({
      apiKey: "sk-ant-process-test",
      script: [
        { steps: [{ type: "tool_use", name: "bash", id: "toolu_gives_up", input: { command: curl(2) } }] },
        { steps: [{ type: "tool_use", name: "bash", id: "toolu_next", input: { command: curl(5) } }] },
        { steps: [{ type: "text", text: "ok" }] },
      ],
    });
    let late: (response: acp.CreateElicitationResponse) => void = () => {};
    const first = new Promise<acp.CreateElicitationResponse>((resolve) => {
      late = resolve;
    });
    let asked = 0;
    const agent = await session(mock, true, {
      elicit: () => (++asked === 1 ? first : { action: "decline" }),
    });
    const turn = agent.prompt("fetch");
    // The first form is withdrawn ($/cancel_request) when curl gives up, and the turn goes on.
    await until(() => agent.lines.some((line) => line.includes("$/cancel_request")) || undefined, "withdrawn", 20_000);
    late(accept("session"));
    expect((await turn).stopReason).toBe("end_turn");
    // The late "for this session" was not read: the next command asked again, and was refused.
    expect(agent.elicitations).toHaveLength(2);
    await finish(agent);
    // The withdrawn question and the next one (declined).
    expect(networkAnswers(agent.home)).toEqual(["deny", "deny"]);
  }, 90_000);

  test("without forms a host stays a permission question on an entry of its own", async () => {
    await using mock = startMockAnthropic({
      apiKey: "sk-ant-process-test",
      script: [
        { steps: [{ type: "tool_use", name: "bash", id: "toolu_curl", input: { command: curl(5) } }] },
        { steps: [{ type: "text", text: "ok" }] },
      ],
    });
    const agent = await session(mock, false, {});
    expect((await agent.prompt("fetch")).stopReason).toBe("end_turn");
    expect(agent.elicitations).toHaveLength(0);
    const asked = agent.permissions.find((p) => p.toolCall.title === `Network: ${HOST}:80`);
    expect(asked?.toolCall.toolCallId).toBe("garuda-question-1");
    expect(asked?.options.map((o) => [o.optionId, o.name])).toEqual([
      ["once", "Allow once"],
      ["session", "Allow for this session"],
      ["deny", "Deny"],
      ["lasting", "Remember for this project"],
    ]);
    await finish(agent);
  }, 90_000);

  test("project settings that loosen safety, with forms: a form at the first prompt; its yes is used", async () => {
    await using mock = startMockAnthropic({
      apiKey: "sk-ant-process-test",
      script: [
        { steps: [{ type: "tool_use", name: "write_file", id: "toolu_w", input: { path: "a.txt", content: "x\n" } }] },
        { steps: [{ type: "text", text: "ok" }] },
      ],
    });
    const agent = await session(mock, true, { elicit: () => accept("session") }, (root) => {
      mkdirSync(join(root, ".garuda"), { recursive: true });
      writeFileSync(join(root, ".garuda", "settings.json"), JSON.stringify({ permissions: { allow: ["write_file"] } }));
    });
    expect((await agent.prompt("write a")).stopReason).toBe("end_turn");
    const form = agent.elicitations[0] as acp.CreateElicitationRequest & Record<string, unknown>;
    expect(String(form.message)).toStartWith("Trust this project's settings?");
    expect(String(form.message)).toContain("write_file");
    expect(form.requestedSchema).toEqual({
      type: "object",
      properties: {
        choice: { type: "string", title: "Allow", oneOf: [{ const: "session", title: "Yes, use them (remembered)" }] },
      },
      required: ["choice"],
    });
    // The project's allow rule is in force: the write did not ask.
    expect(agent.permissions).toEqual([]);
    expect(readFileSync(join(agent.root, "a.txt"), "utf8")).toBe("x\n");
    await finish(agent);
  }, 90_000);
});
