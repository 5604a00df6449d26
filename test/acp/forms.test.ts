// Issue 32 items 3, 4 and 7 over ACP, through the compiled binary and the SDK's client: a file
// change of two hunks accepted hunk by hunk (a multi-select form where the editor has forms, one
// permission question per hunk where it has not), and the consents that are no tool call as
// forms. Tried as an attacker would: a form answered with values never offered, or of the wrong
// type, answered twice, answered after its question was withdrawn — each is a no, and nothing
// is written or lost.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { garudaBinary } from "../support/garudaBinary.ts";
import { HUNKS_OPTION } from "../../src/acp/approver.ts";
import { type EditorAnswers, finishAgent, modelReadResult, startFormsSession } from "../support/acpAgent.ts";
import { type MockAnthropic, type MockResponse, startMockAnthropic } from "../support/mockAnthropic.ts";
import { until } from "../support/processes.ts";
import { makeTempDir } from "../support/tempDir.ts";

let work = "";
let binary = "";

beforeAll(
  async () => {
    work = makeTempDir("garuda-acp-forms-");
    binary = await garudaBinary();
  },
  { timeout: 180_000 },
);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

const OLD = "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n";
const NEW = "one\nTWO\nthree\nfour\nfive\nsix\nseven\nEIGHT\nnine\n";
/** OLD with only the first hunk (two → TWO), and with only the second (eight → EIGHT, nine). */
const FIRST_ONLY = "one\nTWO\nthree\nfour\nfive\nsix\nseven\neight\n";
const SECOND_ONLY = "one\ntwo\nthree\nfour\nfive\nsix\nseven\nEIGHT\nnine\n";

/** A turn that reads notes.txt, then writes NEW over it as call `id`, then says "ok". */
function writeTurn(id: string): MockResponse[] {
  return [
    { steps: [{ type: "tool_use", name: "read_file", id: `${id}_read`, input: { path: "notes.txt" } }] },
    { steps: [{ type: "tool_use", name: "write_file", id, input: { path: "notes.txt", content: NEW } }] },
    { steps: [{ type: "text", text: "ok" }] },
  ];
}

/** The agent, initialized with or without forms, one session in a root holding notes.txt = OLD. */
async function session(mock: MockAnthropic, forms: boolean, answers: EditorAnswers) {
  const root = makeTempDir("root-", { under: work });
  writeFileSync(join(root, "notes.txt"), OLD);
  const agent = await startFormsSession(binary, mock, work, forms, answers, { root });
  return { ...agent, notes: () => readFileSync(join(root, "notes.txt"), "utf8") };
}

const finish = finishAgent;
const resultOf = modelReadResult;

/** Every audit record under `home` (closed sessions have written theirs). */
function auditRecords(home: string): Array<Record<string, unknown>> {
  const dir = join(home, ".garuda", "audit");
  const files = readdirSync(dir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
  return files.flatMap((entry) =>
    readFileSync(join(entry.parentPath, entry.name), "utf8")
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => JSON.parse(line) as Record<string, unknown>),
  );
}

/** The id of the agent's request `method` about call `id`, from its stdout lines. */
function requestIdOf(lines: readonly string[], method: string, id: string): number | string | undefined {
  const line = lines.find((l) => l.includes(`"${method}"`) && l.includes(`"${id}"`));
  return line === undefined ? undefined : (JSON.parse(line) as { id: number | string }).id;
}

const choose = (optionId: string): acp.RequestPermissionResponse => ({ outcome: { outcome: "selected", optionId } });

describe("hunks in the editor, the compiled binary", () => {
  test("with forms: Choose hunks, then one multi-select form; 1 of 2 kept, the model " +
    "told, audited, undone", async () => {
    await using mock = startMockAnthropic({ apiKey: "sk-ant-process-test", script: writeTurn("toolu_write") });
    const agent = await session(mock, true, {
      permission: (params) => choose(params.toolCall.toolCallId === "toolu_write" ? HUNKS_OPTION : "once"),
      elicit: () => ({ action: "accept", content: { choices: ["1"] } }),
    });
    expect((await agent.prompt("write the notes")).stopReason).toBe("end_turn");
    // The whole-edit question shows the diff and offers the hunks beside the usual answers.
    const [whole] = agent.permissions;
    expect(whole?.options.map((option) => option.optionId)).toEqual(["once", "session", "deny", HUNKS_OPTION]);
    expect(whole?.options.at(-1)?.name).toBe("Choose hunks (2)…");
    expect(whole?.toolCall.content?.some((c) => c.type === "diff" && c.newText === NEW)).toBe(true);
    // One form, on the edit's card: a multi-select of titled options (Zed's checkboxes).
    expect(agent.elicitations).toHaveLength(1);
    const form = agent.elicitations[0] as acp.CreateElicitationRequest & Record<string, unknown>;
    expect(form.mode).toBe("form");
    expect(form.toolCallId).toBe("toolu_write");
    expect(form.requestedSchema).toEqual({
      type: "object",
      properties: {
        choices: {
          type: "array",
          title: "Hunks to keep (the others are not written)",
          items: {
            anyOf: [
              { const: "1", title: "1. @@ -2,1 +2,1 @@  -two  +TWO" },
              { const: "2", title: "2. @@ -8,1 +8,2 @@  -eight  +EIGHT" },
            ],
          },
          minItems: 1,
          maxItems: 2,
        },
      },
      required: ["choices"],
    });
    // The file holds exactly the kept hunk; the model reads which was left out.
    expect(agent.notes()).toBe(FIRST_ONLY);
    const told = resultOf(mock, "toolu_write") ?? "";
    expect(told).toContain("1 of 2 hunks were written");
    expect(told).toContain("hunk 2:\n@@ -8,1 +8,2 @@\n-eight\n+EIGHT\n+nine");
    // /undo takes the partial write back.
    await agent.prompt("/undo");
    expect(agent.notes()).toBe(OLD);
    await finish(agent);
    const answer = auditRecords(agent.home).find((r) => r.type === "answer" && r.callId === "toolu_write");
    expect(answer).toMatchObject({ choice: "once", hunks: { kept: [1], rejected: [2] } });
  }, 60_000);

  test("without forms: Choose hunks, then one permission question per hunk with its diff", async () => {
    await using mock = startMockAnthropic({ apiKey: "sk-ant-process-test", script: writeTurn("toolu_write") });
    const agent = await session(mock, false, {
      permission: (params) => {
        const title = params.toolCall.title ?? "";
        if (title.endsWith("hunk 1 of 2")) return choose("choice-leave");
        if (title.endsWith("hunk 2 of 2")) return choose("choice-keep");
        return choose(HUNKS_OPTION);
      },
    });
    expect((await agent.prompt("write the notes")).stopReason).toBe("end_turn");
    expect(agent.elicitations).toHaveLength(0);
    expect(agent.permissions.map((p) => p.toolCall.title)).toEqual([
      "Write notes.txt",
      "Write notes.txt: hunk 1 of 2",
      "Write notes.txt: hunk 2 of 2",
    ]);
    const first = agent.permissions[1];
    expect(first?.toolCall.toolCallId).toBe("toolu_write");
    expect(first?.options.map((o) => [o.optionId, o.name])).toEqual([
      ["choice-keep", "Keep this hunk"],
      ["choice-leave", "Leave it out"],
      ["choice-keep-rest", "Keep it and all the rest"],
      ["choice-leave-rest", "Leave out this one and all the rest"],
      ["decline", "Deny the whole edit"],
    ]);
    const shown = first?.toolCall.content?.[0];
    expect(shown?.type === "content" && shown.content.type === "text" ? shown.content.text : "").toBe(
      "Keep hunk 1 of 2?\n\n```diff\n@@ -1,4 +1,4 @@\n one\n-two\n+TWO\n three\n four\n```",
    );
    // The last hunk has no "all the rest".
    expect(agent.permissions[2]?.options.map((o) => o.optionId)).toEqual(["choice-keep", "choice-leave", "decline"]);
    expect(agent.notes()).toBe(SECOND_ONLY);
    expect(resultOf(mock, "toolu_write")).toContain("hunk 1:\n@@ -2,1 +2,1 @@\n-two\n+TWO");
    await finish(agent);
    const answer = auditRecords(agent.home).find((r) => r.type === "answer" && r.callId === "toolu_write");
    expect(answer).toMatchObject({ choice: "once", hunks: { kept: [2], rejected: [1] } });
  }, 60_000);

  test("an attacker's form: values never offered, a wrong type, none; a second answer; " +
    "a late one — nothing written", async () => {
    await using mock = startMockAnthropic({
      apiKey: "sk-ant-process-test",
      script: [...writeTurn("toolu_unoffered"), ...writeTurn("toolu_type"), ...writeTurn("toolu_late")],
    });
    let late: (response: acp.CreateElicitationResponse) => void = () => {};
    const replies: Record<string, acp.CreateElicitationResponse | Promise<acp.CreateElicitationResponse>> = {
      // "3" was never offered: the whole answer is a no, not "1 and 2".
      toolu_unoffered: { action: "accept", content: { choices: ["1", "2", "3"] } },
      toolu_type: { action: "accept", content: { choices: "1" } },
      toolu_late: new Promise((resolve) => {
        late = resolve;
      }),
    };
    const agent = await session(mock, true, {
      permission: () => choose(HUNKS_OPTION),
      elicit: (params) => replies[(params as { toolCallId?: string }).toolCallId ?? ""] ?? { action: "decline" },
    });
    for (const turn of ["unoffered", "type"]) {
      expect((await agent.prompt(`write (${turn})`)).stopReason).toBe("end_turn");
      expect(agent.notes()).toBe(OLD);
    }
    expect(resultOf(mock, "toolu_unoffered")).toContain("The user denied this.");
    // The first form answered again, as a raw message: not waited for, so dropped.
    const answered = requestIdOf(agent.lines, "elicitation/create", "toolu_unoffered");
    expect(answered).toBeDefined();
    const answer = { jsonrpc: "2.0", id: answered, result: { action: "accept", content: { choices: ["1", "2"] } } };
    agent.proc.stdin.write(`${JSON.stringify(answer)}\n`);
    await agent.proc.stdin.flush();
    // A form withdrawn by a stop: its answer, when it comes, is not read.
    const turn = agent.prompt("write (late)");
    await until(() => agent.elicitations.length === 3 || undefined, "the third form", 20_000);
    await agent.agent.notify(acp.methods.agent.session.cancel, { sessionId: agent.sessionId });
    expect((await turn).stopReason).toBe("cancelled");
    late({ action: "accept", content: { choices: ["1", "2"] } });
    await Bun.sleep(200);
    expect(agent.notes()).toBe(OLD);
    // Nothing was lost: the session still answers.
    await agent.prompt("/diff");
    await finish(agent);
  }, 60_000);
});
