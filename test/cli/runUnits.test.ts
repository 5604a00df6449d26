// `garuda run`'s parts without a process: the answer held per response (a broken-off response's
// text is void), the end of a failed command's output, the exit code of each stop, and the one
// line a wrong command line gets.
import { describe, expect, test } from "bun:test";
import { Screen } from "../../src/cli/chat/screen.ts";
import { describeFailure, UsageError } from "../../src/cli/errors.ts";
import { ModelError } from "../../src/model/types.ts";
import { modelRows } from "../../src/cli/modelsCommand.ts";
import { brokenOff, outputTail } from "../../src/cli/run/activity.ts";
import { Answer } from "../../src/cli/run/answer.ts";
import { EXIT } from "../../src/cli/run/exitCodes.ts";
import { exitCode } from "../../src/cli/run/run.ts";
import { RunStop } from "../../src/cli/run/stop.ts";
import type { AgentEvent } from "../../src/core-types/events.ts";
import type { ModelInfo } from "../../src/model/catalog.ts";

const text = (t: string): AgentEvent => ({ type: "text_delta", text: t });
const retry = (partial: boolean): AgentEvent => ({
  type: "model_retry",
  attempt: 2,
  delayMs: 1000,
  reason: "the stream ended",
  partial,
});
const stepEnd: AgentEvent = {
  type: "step_end",
  step: 1,
  usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheCreationTokens: 0 },
};
const call = (id: string): AgentEvent => ({
  type: "tool_call",
  callId: id,
  tool: "bash",
  input: {},
  info: { title: "$ ls", kind: "execute", locations: [] },
});

/** An Answer writing to a string, as stdout would get it. */
function answerOnString(): { answer: Answer; written: () => string } {
  let out = "";
  const answer = new Answer(new Screen({ write: (chunk: string) => (out += chunk) }, false));
  return { answer, written: () => out };
}

describe("the answer of `garuda run`", () => {
  test("a response that broke off and was asked again leaves nothing on stdout or in the text", () => {
    const { answer, written } = answerOnString();
    for (const event of [text("The answer "), text("is 4"), retry(true)]) answer.event(event);
    // Held until the response is complete: nothing of the void attempt was written.
    expect(written()).toBe("");
    for (const event of [text("The answer is 42."), stepEnd]) answer.event(event);
    expect(written()).toBe("The answer is 42.");
    answer.end();
    expect(written()).toBe("The answer is 42.\n");
    expect(answer.text).toBe("The answer is 42.");
  });

  test("a retry before any text voids nothing; responses before a call are kept and end their line", () => {
    const { answer, written } = answerOnString();
    for (const event of [
      retry(false),
      text("Reading."),
      call("t1"),
      stepEnd,
      text("Done"),
      retry(true),
      text("Done."),
      stepEnd,
    ])
      answer.event(event);
    answer.end();
    expect(answer.text).toBe("Reading.\nDone.");
    expect(written()).toBe("Reading.\nDone.\n");
  });

  test("a response cut at the output limit goes on in the same line; a stop keeps what streamed", () => {
    const { answer, written } = answerOnString();
    for (const event of [text("Cut"), stepEnd, text("ting"), stepEnd, text(" and stop")]) answer.event(event);
    answer.end();
    expect(answer.text).toBe("Cutting and stop");
    expect(written()).toBe("Cutting and stop\n");
  });

  test("in JSON mode (no stdout writer) only the text is kept", () => {
    const answer = new Answer(undefined);
    for (const event of [text("half"), retry(true), text("whole"), stepEnd]) answer.event(event);
    answer.end();
    expect(answer.text).toBe("whole");
  });

  test("the retry's notice on stderr says the broken-off text is left out, not that it is above", () => {
    expect(
      brokenOff({ type: "model_retry", attempt: 2, delayMs: 1500, reason: "the stream ended", partial: true }),
    ).toBe(
      "the model's answer broke off (the stream ended); trying again (attempt 2, in 2 " +
        "s). What it wrote so far is left out of the answer.",
    );
  });
});

describe("a failed command's output", () => {
  test("the last five non-empty lines, without the bash tool's exit-code headline", () => {
    const output = ["Exit code: 3", "line1", "line2", "", "line3", "line4", "line5", "line6", "error: boom", ""].join(
      "\n",
    );
    expect(outputTail(output)).toEqual(["line3", "line4", "line5", "line6", "error: boom"]);
    expect(outputTail("Exit code: 1\n(no output)")).toEqual(["(no output)"]);
    expect(outputTail("one line")).toEqual(["one line"]);
  });
});

describe("the exit code of `garuda run`", () => {
  test("each signal has its own code, the first stop wins, a second signal exits at once with it", () => {
    const exits: number[] = [];
    const term = new RunStop({ exitNow: (code) => exits.push(code) });
    term.onSignal("SIGTERM");
    expect(term.signal.aborted).toBe(true);
    expect(term.code).toBe(143);
    expect(exits).toEqual([]);
    term.onSignal("SIGINT");
    expect(term.code).toBe(143);
    expect(exits).toEqual([143]);
    const hup = new RunStop({ exitNow: () => {} });
    hup.onSignal("SIGHUP");
    expect(hup.code).toBe(129);
    const int = new RunStop({ exitNow: () => {} });
    int.onSignal("SIGINT");
    expect(int.code).toBe(130);
  });

  test("a closed stdout stops the run with 141 and marks stdout closed", () => {
    const stop = new RunStop({ exitNow: () => {} });
    stop.onStdoutError();
    expect(stop.stdoutClosed).toBe(true);
    expect(stop.signal.aborted).toBe(true);
    expect(stop.code).toBe(EXIT.closed);
    expect(EXIT.closed).toBe(141);
  });

  test("a cancelled turn takes the stop's code; without a stop the outcome decides", () => {
    expect(exitCode({ reason: "cancelled" }, 0, 143)).toBe(143);
    expect(exitCode({ reason: "cancelled" }, 0, 129)).toBe(129);
    expect(exitCode({ reason: "cancelled" }, 0)).toBe(130);
    expect(exitCode({ reason: "done" }, 0)).toBe(0);
    expect(exitCode({ reason: "done" }, 1)).toBe(3);
    // The task was a /command that did not run.
    expect(exitCode({ reason: "done" }, 0, undefined, true)).toBe(1);
    expect(exitCode({ reason: "max_steps" }, 0)).toBe(2);
  });
});

describe("a wrong command line", () => {
  test("citty's own errors are one plain line with the usage hint and exit 2, not a crash", () => {
    const cittyError = Object.assign(
      new Error("Invalid value for argument: \u001b[36m--format\u001b[39m (\u001b[36mxml\u001b[39m)."),
      { name: "CLIError" },
    );
    const failure = describeFailure(cittyError, "garuda run");
    expect(failure).toEqual({
      text: "garuda run: Invalid value for argument: --format (xml). See `garuda run --help`.",
      message: "Invalid value for argument: --format (xml). See `garuda run --help`.",
      exitCode: 2,
    });
    expect(describeFailure(new UsageError("unknown option --x."), "garuda models").text).toBe(
      "garuda models: unknown option --x. See `garuda models --help`.",
    );
    const missing = describeFailure(
      Object.assign(new Error("Missing required positional argument: ACTION"), { name: "CLIError" }),
      "garuda audit",
    );
    expect(missing.text).toBe("garuda audit: Missing required positional argument: ACTION. See `garuda audit --help`.");
  });

  test(
    "a message from outside (a server's error, a file name) reaches the terminal " +
      "visible; the JSON message keeps it as it was",
    () => {
      const failure = describeFailure(new ModelError("Anthropic said: \u001b[2J\u202Egone"), "garuda run");
      expect(failure.text).toBe("garuda run: Anthropic said: ⟨U+001B⟩[2J⟨U+202E⟩gone");
      expect(failure.message).toBe("Anthropic said: \u001b[2J\u202Egone");
    },
  );

  test("an unexpected error keeps its stack and exit 1", () => {
    const failure = describeFailure(new TypeError("boom"), "garuda run");
    expect(failure.exitCode).toBe(1);
    expect(failure.text).toStartWith("garuda run: unexpected error (please report it):\nTypeError: boom");
  });
});

describe("garuda models", () => {
  test("the columns line up whatever a cell's width ($10/$50 is wider than $5/$25)", () => {
    const model = (spec: string, input: number, output: number, label?: string): ModelInfo =>
      ({
        spec,
        provider: "anthropic",
        id: spec,
        contextWindow: 1_000_000,
        maxTokens: 128_000,
        price: { input, output },
        thinking: false,
        ...(label && { label }),
      }) as unknown as ModelInfo;
    const rows = modelRows([
      model("a-model", 5, 25, "First"),
      model("a-much-longer-model-name", 10, 50, "Second"),
      model("b", 1, 5, "Third"),
    ]);
    const starts = (word: string) => rows.map((row) => row.indexOf(word));
    expect(new Set(starts("context")).size).toBe(1);
    expect(new Set(rows.map((row, i) => row.indexOf(["First", "Second", "Third"][i] as string))).size).toBe(1);
    expect(rows[1]).toContain("$10/$50 per MTok  Second");
    for (const row of rows) expect(row).not.toEndWith(" ");
  });
});
