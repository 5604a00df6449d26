// An ACP client we did not write: acpx (npm `acpx`, a dev dependency), the headless client from
// OpenClaw, drives the compiled `garuda acp` against the mock Anthropic server, the way a user
// tries an agent from a shell: `acpx --agent "garuda acp" exec "…"`. acpx speaks ACP through its
// own copy of the SDK (1.x) and serves fs/* and terminal/* (which Garuda does not use).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../../scripts/buildTargets.ts";
import { type MockAnthropic, type MockResponse, startMockAnthropic } from "../support/mockAnthropic.ts";
import { makeTempDir } from "../support/tempDir.ts";
import { readProcStat } from "../../src/sandbox/procStat.ts";
import { garudaBinary } from "../support/garudaBinary.ts";

const ACPX = join(ROOT, "node_modules/acpx/dist/cli.js");
const KEY = "sk-ant-acpx-test-not-a-real-key";
const NOTE = "Release notes\nstatus: draft\n";
const FINAL = "Release notes\nstatus: final\n";

let work = "";
let binary = "";

beforeAll(
  async () => {
    work = makeTempDir("garuda-acpx-");
    binary = await garudaBinary();
  },
  { timeout: 180_000 },
);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** Live processes started with this HOME: the agent acpx spawned, or anything it left. */
function processesWithHome(home: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const state = readProcStat(Number(name))?.state;
      if (state === undefined || state === "Z") continue;
      if (readFileSync(`/proc/${name}/environ`, "utf8").split("\0").includes(`HOME=${home}`)) found.push(Number(name));
    } catch {
      // gone, or not ours to read
    }
  }
  return found;
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  home: string;
  project: string;
  mock: MockAnthropic;
}

/** `acpx --agent "<garuda> acp" --cwd <project> <flags> exec <prompt>` with the mock as the model. */
async function acpx(script: MockResponse[], flags: string[], prompt: string): Promise<Run> {
  const home = makeTempDir("home-", { under: work });
  const project = makeTempDir("project-", { under: work });
  writeFileSync(join(project, "notes.txt"), NOTE);
  const mock = startMockAnthropic({ apiKey: KEY, script });
  // acpx's bin is a Node script; with no Node on the machine, Bun runs it.
  const runtime = Bun.which("node") ?? process.execPath;
  const proc = Bun.spawn(
    [runtime, ACPX, "--agent", `${binary} acp`, "--cwd", project, "--timeout", "120", ...flags, "exec", prompt],
    {
      cwd: project,
      // The agent inherits acpx's environment, as it inherits an editor's.
      env: {
        PATH: process.env.PATH,
        HOME: home,
        ANTHROPIC_BASE_URL: mock.url,
        ANTHROPIC_API_KEY: KEY,
        GARUDA_MODEL: "claude-sonnet-5",
      },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    },
  );
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  await mock.close();
  return { code, stdout, stderr, home, project, mock };
}

/** The script: a few words and a read, an edit that needs a yes, then the answer. */
const EDIT_SCRIPT: MockResponse[] = [
  {
    steps: [
      { type: "text", text: "Let me read the notes.", fragments: 3 },
      { type: "tool_use", name: "read_file", id: "toolu_acpx_read", input: { path: "notes.txt" } },
    ],
  },
  {
    steps: [
      {
        type: "tool_use",
        name: "edit_file",
        id: "toolu_acpx_edit",
        input: { path: "notes.txt", old_string: "status: draft", new_string: "status: final" },
      },
    ],
  },
  { steps: [{ type: "text", text: "The notes now say final.", fragments: 4 }] },
];

interface Message {
  id?: number | string;
  method?: string;
  params?: {
    update?: {
      sessionUpdate: string;
      content?: { type: string; text?: string };
      toolCallId?: string;
      status?: string;
      kind?: string;
    };
    toolCall?: { toolCallId: string; content?: { type: string; newText?: string }[] };
    options?: { optionId: string; kind: string }[];
  };
  result?: { stopReason?: string; outcome?: { outcome: string; optionId?: string } };
  error?: unknown;
}

describe("acpx drives garuda acp", () => {
  test("--format json --approve-all: the streamed answer, the tool calls, the approved edit on disk", async () => {
    const run = await acpx(EDIT_SCRIPT, ["--approve-all", "--format", "json"], "Make the notes final.");
    if (run.code !== 0) console.error(run.stdout, run.stderr);
    expect(run.code).toBe(0);
    const messages = run.stdout
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => JSON.parse(line) as Message);

    // acpx's own initialize, answered by Garuda with protocol version 1.
    const initialize = messages.find((m) => m.method === "initialize");
    expect(initialize).toBeDefined();
    expect(
      messages.some(
        (m) =>
          m.id === initialize?.id &&
          m.result !== undefined &&
          (m.result as { protocolVersion?: number }).protocolVersion === 1,
      ),
    ).toBe(true);

    const updates = messages.flatMap((m) =>
      m.method === "session/update" && m.params?.update ? [m.params.update] : [],
    );
    const text = updates
      .flatMap((u) =>
        u.sessionUpdate === "agent_message_chunk" && u.content?.type === "text" ? [u.content.text ?? ""] : [],
      )
      .join("");
    expect(text).toBe("Let me read the notes.The notes now say final.");
    expect(updates.filter((u) => u.sessionUpdate === "agent_message_chunk").length).toBeGreaterThanOrEqual(5);

    // Both calls shown with their kinds and finished; the edit asked, and acpx allowed it once.
    // Then the turn's list of changed files, a completed edit card of its own.
    const calls = updates.filter((u) => u.sessionUpdate === "tool_call");
    expect(calls.map((c) => [(c.toolCallId ?? "").replace(/^turn-changes-.*/, "turn-changes"), c.kind])).toEqual([
      ["toolu_acpx_read", "read"],
      ["toolu_acpx_edit", "edit"],
      ["turn-changes", "edit"],
    ]);
    for (const id of ["toolu_acpx_read", "toolu_acpx_edit"]) {
      expect(
        updates.some((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === id && u.status === "completed"),
      ).toBe(true);
    }
    const question = messages.find((m) => m.method === "session/request_permission");
    expect(question?.params?.toolCall?.toolCallId).toBe("toolu_acpx_edit");
    expect(question?.params?.toolCall?.content?.some((c) => c.type === "diff" && c.newText === FINAL)).toBe(true);
    expect(question?.params?.options?.map((o) => o.kind)).toEqual(["allow_once", "allow_always", "reject_once"]);
    expect(messages.some((m) => m.id === question?.id && m.result?.outcome?.optionId === "once")).toBe(true);
    expect(readFileSync(join(run.project, "notes.txt"), "utf8")).toBe(FINAL);

    expect(messages.some((m) => m.result?.stopReason === "end_turn")).toBe(true);
    expect(run.mock.requests.length).toBe(3);
    expect(processesWithHome(run.home)).toEqual([]);
  }, 150_000);

  test("plain text output: the answer as a user reads it", async () => {
    const run = await acpx(
      [{ steps: [{ type: "text", text: "Garuda answers through acpx.", fragments: 5 }] }],
      ["--approve-all"],
      "Say hello.",
    );
    if (run.code !== 0) console.error(run.stdout, run.stderr);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Garuda answers through acpx.");
    expect(run.stdout).toContain("end_turn");
    expect(processesWithHome(run.home)).toEqual([]);
  }, 150_000);

  test("--deny-all: acpx picks Garuda's deny option, nothing is written, exit 5 (permission denied)", async () => {
    const script: MockResponse[] = [
      // An edit is made against text the model has read (an edit sure to fail asks no one).
      { steps: [{ type: "tool_use", name: "read_file", id: "toolu_acpx_read", input: { path: "notes.txt" } }] },
      {
        steps: [
          {
            type: "tool_use",
            name: "edit_file",
            id: "toolu_acpx_denied",
            input: { path: "notes.txt", old_string: "status: draft", new_string: "status: final" },
          },
        ],
      },
      { steps: [{ type: "text", text: "Understood, I left the notes as they are." }] },
    ];
    const run = await acpx(script, ["--deny-all", "--format", "json"], "Make the notes final.");
    expect(run.code).toBe(5);
    const messages = run.stdout
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => JSON.parse(line) as Message);
    const question = messages.find((m) => m.method === "session/request_permission");
    expect(messages.some((m) => m.id === question?.id && m.result?.outcome?.optionId === "deny")).toBe(true);
    expect(
      messages.some(
        (m) =>
          m.method === "session/update" &&
          m.params?.update?.toolCallId === "toolu_acpx_denied" &&
          m.params.update.status === "failed",
      ),
    ).toBe(true);
    expect(readFileSync(join(run.project, "notes.txt"), "utf8")).toBe(NOTE);
    expect(processesWithHome(run.home)).toEqual([]);
  }, 150_000);
});
