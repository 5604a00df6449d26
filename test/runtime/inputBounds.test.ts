// No input bricks a session: through the real Anthropic client and the mock Messages API (real
// SSE), a tool input nested 100,000 levels deep and one with a 50 MB string become tool errors the
// model reads, and the next prompt works, live and after a resume from the session file. A prompt
// too large for the context window is refused before it joins the conversation; a session file
// with a planted deep line resumes without it.
import { describe, expect, test } from "bun:test";
import { appendFileSync, readFileSync } from "node:fs";
import { createAnthropicClient } from "../../src/model/anthropic.ts";
import { FakeModelClient, fake } from "../../src/model/fake.ts";
import { MAX_TOOL_INPUT_CHARS } from "../../src/model/toolInput.ts";
import type { ModelClient, ModelEvent } from "../../src/model/types.ts";
import { MAX_TOOL_RESULT_CHARS } from "../../src/runtime/loop.ts";
import { readSession } from "../../src/store/sessionFile.ts";
import { MAX_RECORD_DEPTH } from "../../src/store/sessionRecords.ts";
import { type MockAnthropic, type MockResponse, startMockAnthropic } from "../support/mockAnthropic.ts";
import { ofType, readTool, testRuntime, texts, turn } from "../support/runtimeHelpers.ts";

const DEPTH = 100_000;
const deepJson = `{"path":${"[".repeat(DEPTH)}${"]".repeat(DEPTH)}}`;

const clientFor = (mock: MockAnthropic) =>
  createAnthropicClient({ apiKey: "sk-ant-test", baseUrl: mock.url, retry: { maxAttempts: 1 } });
const answer = (text: string): MockResponse => ({ steps: [{ type: "text", text }] });
const toolResults = (body: any) =>
  body.messages
    .flatMap((m: any) => (Array.isArray(m.content) ? m.content : []))
    .filter((b: any) => b.type === "tool_result");
const longestLine = (file: string) =>
  Math.max(
    ...readFileSync(file, "utf8")
      .split("\n")
      .map((line) => line.length),
  );

describe("no input bricks a session", () => {
  test(
    "a tool input nested 100,000 levels: a tool error the model reads, the next " +
      "prompt works, and so does a resume",
    async () => {
      await using mock = startMockAnthropic({
        script: [
          { steps: [{ type: "tool_use", id: "toolu_deep", name: "read", json: deepJson, fragments: 4 }] },
          answer("I will send it flat."),
          answer("Second prompt answered."),
        ],
      });
      await using real = testRuntime({ files: { "a.txt": "alpha" }, tools: [readTool()], client: clientFor(mock) });

      const first = await turn(real.runtime, "Read it.");
      expect(first.stop).toBe("done");
      const [result] = ofType(first.events, "tool_result");
      expect(result).toEqual(expect.objectContaining({ callId: "toolu_deep", status: "failed" }));
      expect(result?.output).toContain("nested 100,001 levels deep, and Garuda takes at most 64");
      // The model heard it: the call went back under its name without the input, the error as its result.
      const second = mock.requests[1]?.body;
      expect(second.messages[1].content).toEqual([{ type: "tool_use", id: "toolu_deep", name: "read", input: {} }]);
      expect(toolResults(second)[0]).toEqual(
        expect.objectContaining({
          tool_use_id: "toolu_deep",
          is_error: true,
          content: expect.stringContaining("Send the input as the tool's schema describes it"),
        }),
      );

      const next = await turn(real.runtime, "Again?");
      expect(next.stop).toBe("done");
      expect(texts(next.events)).toBe("Second prompt answered.");

      // The session file reads back whole and a resumed session answers too.
      const file = real.runtime.session?.file as string;
      const data = readSession(file);
      expect(data.damaged).toBeUndefined();
      expect(longestLine(file)).toBeLessThan(5_000);
      mock.enqueue(answer("Resumed."));
      // One writer per session file: the first runtime lets go of it before the resume.
      await real.runtime.close();
      await using resumed = testRuntime({
        root: real.root,
        home: real.home,
        tools: [readTool()],
        client: clientFor(mock),
        resume: file,
      });
      const after = await turn(resumed.runtime, "Still there?");
      expect(texts(after.events)).toBe("Resumed.");
    },
  );

  test("a 50 MB string argument: refused as too large; what goes back to the model and " +
    "into the session file stays small", async () => {
    const json = JSON.stringify({ path: "a.txt", content: "y".repeat(50 * 1024 * 1024) });
    await using mock = startMockAnthropic({
      script: [
        {
          steps: [
            { type: "text", text: "Writing." },
            { type: "tool_use", id: "toolu_big", name: "read", json, fragments: 50 },
          ],
        },
        answer("Split it."),
        answer("Next."),
      ],
    });
    await using real = testRuntime({ tools: [readTool()], client: clientFor(mock) });
    const first = await turn(real.runtime, "Write it.");
    expect(first.stop).toBe("done");
    expect(ofType(first.events, "tool_result")[0]?.output).toContain(
      `its input is ${json.length.toLocaleString("en-US")} characters of JSON, more ` +
        `than the ${MAX_TOOL_INPUT_CHARS.toLocaleString("en-US")}`,
    );
    expect(JSON.stringify(ofType(first.events, "tool_call")).length).toBeLessThan(5_000);
    expect(JSON.stringify(mock.requests[1]?.body).length).toBeLessThan(100_000);
    expect(texts((await turn(real.runtime, "And now?")).events)).toBe("Next.");
    expect(longestLine(real.runtime.session?.file as string)).toBeLessThan(5_000);
  }, 60_000);

  test("any client (one that yields the deep value itself): the runtime refuses the call the same way", async () => {
    let deep: unknown = [];
    for (let i = 0; i < DEPTH; i++) deep = [deep];
    const call = { type: "tool_use" as const, id: "toolu_value", name: "read", input: { path: deep } };
    const usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheCreationTokens: 0 };
    // FakeModelClient copies what it yields (structuredClone overflows on this value), so the first response comes from
    // here.
    const rest = new FakeModelClient([fake.text("Flat now."), fake.text("Next.")]);
    let served = 0;
    const client: ModelClient = {
      stream: (request, signal) =>
        served++ > 0
          ? rest.stream(request, signal)
          : (async function* (): AsyncGenerator<ModelEvent> {
              yield call;
              yield { type: "message_end", stopReason: "tool_use", content: [call], usage };
            })(),
    };
    await using real = testRuntime({ tools: [readTool()], client });
    const first = await turn(real.runtime, "Go.");
    expect(ofType(first.events, "tool_result")[0]?.output).toContain("nested more than 64 levels deep");
    expect(texts((await turn(real.runtime, "Again.")).events)).toBe("Next.");
  });

  test(
    "a prompt too large for the context window is refused before it joins the " + "conversation; the next one goes",
    async () => {
      await using mock = startMockAnthropic({ script: [answer("Small one answered.")] });
      await using real = testRuntime({ client: clientFor(mock), info: { contextWindow: 10_000 } });
      const big = await turn(real.runtime, "z".repeat(30_000));
      expect(big.stop).toBe("done");
      expect(ofType(big.events, "notice").map((notice) => notice.text)).toEqual([
        expect.stringContaining("The prompt is 30,000 characters, more than the 20,000 Garuda sends"),
      ]);
      expect(mock.requests).toHaveLength(0);
      const small = await turn(real.runtime, "A small one.");
      expect(texts(small.events)).toBe("Small one answered.");
      expect(JSON.stringify(mock.requests[0]?.body.messages)).not.toContain("zzzz");
    },
  );

  test("a tool result above the bound reaches the model cut, with how much was left out", async () => {
    const huge = "r".repeat(MAX_TOOL_RESULT_CHARS + 5_000);
    await using mock = startMockAnthropic({
      script: [{ steps: [{ type: "tool_use", id: "toolu_r", name: "read", input: { path: "x" } }] }, answer("Done.")],
    });
    await using real = testRuntime({
      tools: [readTool("read", async () => ({ output: huge }))],
      client: clientFor(mock),
    });
    await turn(real.runtime, "Read.");
    const content = toolResults(mock.requests[1]?.body)[0].content as string;
    expect(content.length).toBeLessThan(MAX_TOOL_RESULT_CHARS + 100);
    expect(content).toEndWith("[… 5,000 more characters left out]");
  });

  test("a session file with a planted line nested too deep resumes without it", async () => {
    await using mock = startMockAnthropic({ script: [answer("One."), answer("Resumed fine.")] });
    await using real = testRuntime({ client: clientFor(mock) });
    await turn(real.runtime, "First.");
    const file = real.runtime.session?.file as string;
    await real.runtime.close();
    appendFileSync(
      file,
      `{"t":"x","type":"user","prompt":"p","content":[{"type":"text","text":"x","extra":${deepJson}}]}\n`,
    );
    const data = readSession(file);
    expect(data.damaged?.reason).toBe(`the line is nested deeper than ${MAX_RECORD_DEPTH} levels`);
    await using resumed = testRuntime({ root: real.root, home: real.home, client: clientFor(mock), resume: file });
    const after = await turn(resumed.runtime, "Go on.");
    expect(texts(after.events)).toBe("Resumed fine.");
    expect(ofType(after.events, "notice")[0]?.text).toContain("damaged line");
  });
});
