// The ask_user tool over ACP, through the compiled binary and the SDK's client: an editor that
// advertises `elicitation.form` gets an elicitation/create form tied to the tool call; one that
// does not gets a session/request_permission with the options (no free text, and the model is
// told). Every answer reaches the model as the tool's result: an answer, a decline, a dismissal;
// a value never offered or of the wrong type is a decline; a question withdrawn by a stop (a
// session/cancel, or the editor's $/cancel_request of its prompt) is cancelled at the editor
// ($/cancel_request) and its late answer is not read. Plus the pure
// checks of a form's answer (formAnswer, permissionAnswer) against what was offered.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import * as acp from "@agentclientprotocol/sdk";
import { garudaBinary } from "../support/garudaBinary.ts";
import { formAnswer, formSchema, permissionAnswer, questionOptions, wantsForms } from "../../src/acp/asker.ts";
import { MAX_ANSWER_CHARS, type UserAnswer, type UserQuestion } from "../../src/core-types/question.ts";
import { DECLINED_OUTPUT, DISMISSED_OUTPUT, UNAVAILABLE_OUTPUT } from "../../src/tools/askUser.ts";
import { type EditorAnswers, finishAgent, modelReadResult, startFormsSession } from "../support/acpAgent.ts";
import { type MockAnthropic, type MockResponse, startMockAnthropic } from "../support/mockAnthropic.ts";
import { until } from "../support/processes.ts";
import { makeTempDir } from "../support/tempDir.ts";

let work = "";
let binary = "";

beforeAll(
  async () => {
    work = makeTempDir("garuda-acp-ask-");
    binary = await garudaBinary();
  },
  { timeout: 180_000 },
);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

const COLOUR = {
  question: "Which colour should the theme use?\u202e",
  options: [{ label: "Red" }, { label: "Blue", description: "the brand colour" }],
  allow_text: true,
};

/** One turn: the model asks (call `id`), then says "ok" after reading the answer. */
function askTurn(id: string, input: unknown = COLOUR): MockResponse[] {
  return [{ steps: [{ type: "tool_use", name: "ask_user", id, input }] }, { steps: [{ type: "text", text: "ok" }] }];
}

/** The mock: these turns, then a question ("toolu_late") that a stop withdraws, then a turn after it. */
function askingMock(...turns: MockResponse[][]): MockAnthropic {
  return startMockAnthropic({
    apiKey: "sk-ant-process-test",
    script: [
      ...turns.flat(),
      { steps: [{ type: "tool_use", name: "ask_user", id: "toolu_late", input: COLOUR }] },
      { steps: [{ type: "text", text: "after the stop" }] },
    ],
  });
}

/** Waits until the agent cancels ($/cancel_request) its `method` request about the call "toolu_late". */
async function withdrawn(lines: readonly string[], method: string): Promise<void> {
  const asked = lines.find((line) => line.includes(method) && line.includes("toolu_late"));
  const id = asked && (JSON.parse(asked) as { id: number | string }).id;
  const cancel = `"requestId":${JSON.stringify(id)}`;
  await until(
    () => lines.some((line) => line.includes("$/cancel_request") && line.includes(cancel)) || undefined,
    `the ${method} request withdrawn`,
    10_000,
  );
}

/** The agent, initialized with or without forms, and one session. */
const session = (mock: MockAnthropic, forms: boolean, answers: EditorAnswers) =>
  startFormsSession(binary, mock, work, forms, answers);

const finish = finishAgent;
const resultOf = modelReadResult;

describe("ask_user over ACP, the compiled binary", () => {
  test("an editor with forms: answer, decline, dismiss, a value never offered, a wrong " +
    "type, a late answer", async () => {
    await using mock = askingMock(
      askTurn("toolu_answer"),
      askTurn("toolu_decline"),
      askTurn("toolu_dismiss"),
      askTurn("toolu_unoffered"),
      askTurn("toolu_type"),
    );
    let late: (response: acp.CreateElicitationResponse) => void = () => {};
    const replies: Record<string, acp.CreateElicitationResponse | Promise<acp.CreateElicitationResponse>> = {
      toolu_answer: { action: "accept", content: { choice: "2", text: "a darker navy" } },
      toolu_decline: { action: "decline" },
      toolu_dismiss: { action: "cancel" },
      toolu_unoffered: { action: "accept", content: { choice: "7" } },
      toolu_type: { action: "accept", content: { choice: 2 } },
      toolu_late: new Promise((resolve) => {
        late = resolve;
      }),
    };
    const agent = await session(mock, true, {
      elicit: (params) => replies[(params as { toolCallId?: string }).toolCallId ?? ""] ?? { action: "decline" },
    });
    for (const turn of ["answer", "decline", "dismiss", "unoffered", "type"])
      expect((await agent.prompt(`ask (${turn})`)).stopReason).toBe("end_turn");

    const [form] = agent.elicitations as Array<acp.CreateElicitationRequest & Record<string, unknown>>;
    expect(form?.mode).toBe("form");
    expect(form?.sessionId).toBe(agent.sessionId);
    expect(form?.toolCallId).toBe("toolu_answer");
    // The hidden character the model wrote is shown, not obeyed.
    expect(form?.message).toBe("Which colour should the theme use?⟨U+202E⟩");
    expect(form?.requestedSchema).toEqual({
      type: "object",
      properties: {
        choice: {
          type: "string",
          title: "Pick one",
          oneOf: [
            { const: "1", title: "Red" },
            { const: "2", title: "Blue", description: "the brand colour" },
          ],
        },
        text: { type: "string", title: "Or answer in your own words", maxLength: MAX_ANSWER_CHARS },
      },
    });
    expect(agent.permissions).toEqual([]);

    expect(resultOf(mock, "toolu_answer")).toBe('The user chose: "Blue".\nThe user wrote:\na darker navy');
    expect(resultOf(mock, "toolu_decline")).toBe(DECLINED_OUTPUT);
    expect(resultOf(mock, "toolu_dismiss")).toBe(DISMISSED_OUTPUT);
    expect(resultOf(mock, "toolu_unoffered")).toBe(DECLINED_OUTPUT);
    expect(resultOf(mock, "toolu_type")).toBe(DECLINED_OUTPUT);

    // A stop while the form waits: the request is withdrawn, the turn ends cancelled, and the
    // answer that comes after is not read (the model hears the call was cancelled).
    const stopped = agent.prompt("ask, then be stopped");
    await until(() => agent.elicitations.length === 6 || undefined, "the sixth form", 20_000);
    await agent.agent.notify(acp.methods.agent.session.cancel, { sessionId: agent.sessionId });
    expect((await stopped).stopReason).toBe("cancelled");
    late({ action: "accept", content: { choice: "1" } });
    await withdrawn(agent.lines, "elicitation/create");
    expect((await agent.prompt("go on")).stopReason).toBe("end_turn");
    expect(resultOf(mock, "toolu_late")).toBe("Cancelled by the user.");
    await finish(agent);
  }, 120_000);

  test("an editor without forms: the options as a permission question, no free text, " +
    "and the model is told", async () => {
    await using mock = askingMock(
      askTurn("toolu_pick"),
      askTurn("toolu_decline"),
      askTurn("toolu_unoffered"),
      askTurn("toolu_words", { question: "What should the release be called?" }),
    );
    let late: (response: acp.RequestPermissionResponse) => void = () => {};
    const replies: Record<string, acp.RequestPermissionResponse | Promise<acp.RequestPermissionResponse>> = {
      toolu_pick: { outcome: { outcome: "selected", optionId: "choice-2" } },
      toolu_decline: { outcome: { outcome: "selected", optionId: "decline" } },
      toolu_unoffered: { outcome: { outcome: "selected", optionId: "choice-9" } },
      toolu_late: new Promise((resolve) => {
        late = resolve;
      }),
    };
    const agent = await session(mock, false, {
      permission: (params) =>
        replies[params.toolCall.toolCallId] ?? { outcome: { outcome: "selected", optionId: "decline" } },
      elicit: () => {
        throw new Error("an editor without forms got a form");
      },
    });
    for (const turn of ["pick", "decline", "unoffered", "words"])
      expect((await agent.prompt(`ask (${turn})`)).stopReason).toBe("end_turn");

    const [question] = agent.permissions;
    expect(question?.toolCall.toolCallId).toBe("toolu_pick");
    expect(question?.options).toEqual([
      { optionId: "choice-1", name: "Red", kind: "allow_once" },
      { optionId: "choice-2", name: "Blue", kind: "allow_once" },
      { optionId: "decline", name: "Decline to answer", kind: "reject_once" },
    ]);
    const shown = JSON.stringify(question?.toolCall.content);
    expect(shown).toContain("⟨U+202E⟩");
    expect(shown).toContain("Blue: the brand colour");
    expect(shown).not.toContain("\u202e");
    expect(agent.elicitations).toEqual([]);

    expect(resultOf(mock, "toolu_pick")).toBe(
      'The user chose: "Blue".\nThe user\'s editor cannot show a text field, so they ' +
        "could only pick one of your options.",
    );
    expect(resultOf(mock, "toolu_decline")).toBe(DECLINED_OUTPUT);
    expect(resultOf(mock, "toolu_unoffered")).toBe(DECLINED_OUTPUT);
    // Free text only: not put to an editor that cannot take it.
    expect(resultOf(mock, "toolu_words")).toBe(UNAVAILABLE_OUTPUT);
    expect(agent.permissions.map((p) => p.toolCall.toolCallId)).toEqual([
      "toolu_pick",
      "toolu_decline",
      "toolu_unoffered",
    ]);

    // This editor withdraws its prompt with $/cancel_request instead of session/cancel: the
    // question is withdrawn the same way.
    const withdraw = new AbortController();
    const stopped = agent.agent.request(
      acp.methods.agent.session.prompt,
      { sessionId: agent.sessionId, prompt: [{ type: "text", text: "ask, then be stopped" }] },
      { cancellationSignal: withdraw.signal },
    );
    await until(() => agent.permissions.length === 4 || undefined, "the fourth question", 20_000);
    withdraw.abort();
    await stopped.catch(() => {});
    await withdrawn(agent.lines, "session/request_permission");
    late({ outcome: { outcome: "selected", optionId: "choice-1" } });
    expect((await agent.prompt("go on")).stopReason).toBe("end_turn");
    expect(resultOf(mock, "toolu_late")).toBe("Cancelled by the user.");
    await finish(agent);
  }, 120_000);
});

describe("an editor's answer is checked against what was offered", () => {
  const single: UserQuestion = {
    kind: "ask_user",
    text: "Which?",
    choices: [
      { value: "1", label: "A" },
      { value: "2", label: "B" },
    ],
    multiple: false,
    freeText: false,
  };
  const several: UserQuestion = { ...single, multiple: true, freeText: true };

  test("forms: the offered values only, of the right type, in the question's fields", () => {
    expect(formAnswer(single, { action: "accept", content: { choice: "2" } })).toEqual({
      outcome: "answered",
      values: ["2"],
    });
    expect(formAnswer(several, { action: "accept", content: { choices: ["2", "1"], text: "both" } })).toEqual({
      outcome: "answered",
      values: ["1", "2"],
      text: "both",
    });
    const declined: UserAnswer = { outcome: "declined" };
    // A value never offered, a number for a string, a list for one pick, a repeat, a field not
    // asked for, free text where none was offered, text too long, nothing at all, an unknown action.
    expect(formAnswer(single, { action: "accept", content: { choice: "3" } })).toEqual(declined);
    expect(formAnswer(single, { action: "accept", content: { choice: 1 } })).toEqual(declined);
    expect(formAnswer(single, { action: "accept", content: { choice: ["1"] } })).toEqual(declined);
    expect(formAnswer(several, { action: "accept", content: { choices: ["1", "1"] } })).toEqual(declined);
    expect(formAnswer(single, { action: "accept", content: { choice: "1", admin: true } })).toEqual(declined);
    expect(formAnswer(single, { action: "accept", content: { choice: "1", text: "x" } })).toEqual(declined);
    expect(formAnswer(several, { action: "accept", content: { text: "x".repeat(MAX_ANSWER_CHARS + 1) } })).toEqual(
      declined,
    );
    expect(formAnswer(single, { action: "accept", content: {} })).toEqual(declined);
    expect(formAnswer(single, { action: "accept" })).toEqual(declined);
    expect(formAnswer(single, { action: "_approve_everything" })).toEqual(declined);
    expect(formAnswer(single, { action: "cancel" })).toEqual({ outcome: "cancelled" });
  });

  test("the form asks for what the question allows", () => {
    expect(formSchema(single).required).toEqual(["choice"]);
    expect(formSchema(several).properties.choices).toMatchObject({ type: "array", maxItems: 2 });
    expect(formSchema(several).required).toEqual([]);
    expect(formSchema({ ...single, choices: [], freeText: true }).required).toEqual(["text"]);
  });

  test("without forms: a choice's option, anything else a decline", () => {
    expect(questionOptions(single).map((o) => o.optionId)).toEqual(["choice-1", "choice-2", "decline"]);
    expect(permissionAnswer(single, { outcome: { outcome: "selected", optionId: "choice-1" } })).toEqual({
      outcome: "answered",
      values: ["1"],
    });
    expect(permissionAnswer(several, { outcome: { outcome: "selected", optionId: "choice-2" } })).toEqual({
      outcome: "answered",
      values: ["2"],
      without: ["free_text", "multiple"],
    });
    for (const optionId of ["choice-3", "once", "decline", "choice-"])
      expect(permissionAnswer(single, { outcome: { outcome: "selected", optionId } })).toEqual({
        outcome: "declined",
      });
    expect(permissionAnswer(single, { outcome: { outcome: "cancelled" } })).toEqual({ outcome: "cancelled" });
  });

  test("forms are used only when the editor says so", () => {
    expect(wantsForms({ elicitation: { form: {} } })).toBe(true);
    expect(wantsForms({ elicitation: { url: {} } as { form?: unknown } })).toBe(false);
    expect(wantsForms({ elicitation: { form: true } })).toBe(false);
    expect(wantsForms(undefined)).toBe(false);
  });
});
