// What the editor receives stays within what a client reads, and shows names safely. Through the
// SDK's client and Garuda's ACP server (real runtime, tools, permission engine), with the real
// Anthropic client on the mock Messages API where the model's wire format matters: a tool input
// nested 100,000 levels and one with a 50 MB string are tool errors and the next prompt works;
// a 40 MB answer chunk goes out cut; large inputs under the bounds come with their fields cut
// (rawInput, previews, content; a diff over 1 MB is text only); file names with ESC, a newline
// or U+202E never reach the editor raw (every line it read is scanned).
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { boundMessage, MAX_EDITOR_MESSAGE_BYTES } from "../../src/acp/messageBound.ts";
import { editorStream } from "../../src/acp/editorStream.ts";
import { EventMapper, MAX_RAW_INPUT_CHARS } from "../../src/acp/eventMapper.ts";
import { MAX_CONTENT_CHARS } from "../../src/acp/toolCallContent.ts";
import { KnownCalls } from "../../src/acp/sessionChannel.ts";
import { createAnthropicClient } from "../../src/model/anthropic.ts";
import { FakeModelClient, fake } from "../../src/model/fake.ts";
import { type MockAnthropic, type MockResponse, startMockAnthropic } from "../support/mockAnthropic.ts";
import { contentText, messageText, ofKind, startHarness } from "../support/acpHarness.ts";

const DEPTH = 100_000;
const deepJson = `{"path":${"[".repeat(DEPTH)}${"]".repeat(DEPTH)}}`;
const clientFor = (mock: MockAnthropic) =>
  createAnthropicClient({ apiKey: "sk-ant-test", baseUrl: mock.url, retry: { maxAttempts: 1 } });
const answer = (text: string): MockResponse => ({ steps: [{ type: "text", text }] });
const longest = (lines: readonly string[]) => Math.max(0, ...lines.map((line) => Buffer.byteLength(line)));
const LEFT_OUT = /\[… [\d,]+ more characters left out\]/;

describe("what the editor receives is bounded", () => {
  test(
    "a tool input nested 100,000 levels (real SSE): a failed call that says why, " + "and the next prompt works",
    async () => {
      await using mock = startMockAnthropic({
        script: [
          { steps: [{ type: "tool_use", id: "toolu_deep", name: "read_file", json: deepJson, fragments: 4 }] },
          answer("I will send it flat."),
          answer("Second answered."),
        ],
      });
      await using h = startHarness({ client: clientFor(mock) });
      await h.initialize();
      const { sessionId } = await h.newSession();
      expect((await h.prompt(sessionId, "Read it.")).stopReason).toBe("end_turn");
      const failed = ofKind(h.updatesOf(sessionId), "tool_call_update").find(
        (u) => u.toolCallId === "toolu_deep" && u.status === "failed",
      );
      expect(contentText(failed?.content)).toContain(
        "Your call of read_file was not run: its input is nested 100,001 levels deep",
      );
      expect((await h.prompt(sessionId, "Again.")).stopReason).toBe("end_turn");
      expect(messageText(h.updatesOf(sessionId))).toContain("Second answered.");
      expect(longest(h.lines)).toBeLessThan(10_000);
    },
  );

  test("a 50 MB string argument (real SSE): every line the editor reads is small, and " +
    "the session goes on", async () => {
    const json = JSON.stringify({ path: "big.txt", content: "z".repeat(50 * 1024 * 1024) });
    await using mock = startMockAnthropic({
      script: [
        { steps: [{ type: "tool_use", id: "toolu_big", name: "write_file", json, fragments: 20 }] },
        answer("Split it."),
        answer("Next answered."),
      ],
    });
    await using h = startHarness({ client: clientFor(mock) });
    await h.initialize();
    const { sessionId } = await h.newSession();
    expect((await h.prompt(sessionId, "Write it.")).stopReason).toBe("end_turn");
    const failed = ofKind(h.updatesOf(sessionId), "tool_call_update").find((u) => u.toolCallId === "toolu_big");
    expect(contentText(failed?.content)).toContain("characters of JSON, more than the 1,000,000 Garuda takes");
    expect(h.permissions).toHaveLength(0);
    expect((await h.prompt(sessionId, "And now?")).stopReason).toBe("end_turn");
    expect(messageText(h.updatesOf(sessionId))).toContain("Next answered.");
    expect(longest(h.lines)).toBeLessThan(10_000);
  }, 60_000);

  test("a 40 MB answer chunk goes out cut under the bound, and the session goes on", async () => {
    const huge = "w".repeat(40 * 1024 * 1024);
    await using mock = startMockAnthropic({
      script: [{ steps: [{ type: "text", text: huge }] }, answer("Short now.")],
    });
    await using h = startHarness({ client: clientFor(mock) });
    await h.initialize();
    const { sessionId } = await h.newSession();
    expect((await h.prompt(sessionId, "Talk.")).stopReason).toBe("end_turn");
    expect(longest(h.lines)).toBeLessThanOrEqual(MAX_EDITOR_MESSAGE_BYTES);
    expect(messageText(h.updatesOf(sessionId))).toMatch(LEFT_OUT);
    expect((await h.prompt(sessionId, "Again.")).stopReason).toBe("end_turn");
    expect(messageText(h.updatesOf(sessionId))).toContain("Short now.");
    // The model gets its own answer back cut too.
    expect(JSON.stringify(mock.requests[1]?.body).length).toBeLessThan(3_000_000);
  }, 60_000);

  test(
    "a large write under the bounds: rawInput cut, the diff whole (under 1 MB), the " + "question's preview short",
    async () => {
      const content = `${"line of text\n".repeat(70_000)}end`;
      const model = new FakeModelClient([
        fake.toolCall("write_file", { path: "big.txt", content }, { id: "call_w" }),
        fake.text("Done."),
      ]);
      await using h = startHarness({ models: [model] });
      h.answer = () => ({ outcome: { outcome: "selected", optionId: "deny" } });
      await h.initialize();
      const { sessionId } = await h.newSession();
      await h.prompt(sessionId, "Write big.txt.");
      const call = ofKind(h.updatesOf(sessionId), "tool_call").find((u) => u.toolCallId === "call_w");
      const raw = (call?.rawInput as { content: string }).content;
      expect(raw.length).toBeLessThan(MAX_RAW_INPUT_CHARS + 100);
      expect(raw).toMatch(LEFT_OUT);
      expect(call?.content).toEqual([
        { type: "diff", path: expect.stringContaining("big.txt"), oldText: null, newText: content },
      ]);
      const question = h.permissions[0];
      expect(question?.toolCall.content?.find((c) => c.type === "diff")).toEqual(
        expect.objectContaining({ newText: content }),
      );
      expect(contentText(question?.toolCall.content).length).toBeLessThan(MAX_CONTENT_CHARS);
      expect(longest(h.lines)).toBeLessThan(3 * 1024 * 1024);
    },
  );

  test("a diff over 1 MB (old and new together) is text only, the preview short", async () => {
    const old = "a".repeat(600_000);
    // write_file over an existing file wants it read first: the model reads it, then writes.
    const model = new FakeModelClient([
      fake.toolCall("read_file", { path: "f.txt" }),
      fake.toolCall("write_file", { path: "f.txt", content: "b".repeat(600_000) }, { id: "call_e" }),
      fake.text("Done."),
    ]);
    await using h = startHarness({ models: [model], files: { "f.txt": old } });
    h.answer = () => ({ outcome: { outcome: "selected", optionId: "deny" } });
    await h.initialize();
    const { sessionId } = await h.newSession();
    await h.prompt(sessionId, "Rewrite f.txt.");
    const call = ofKind(h.updatesOf(sessionId), "tool_call").find((u) => u.toolCallId === "call_e");
    expect(call?.content ?? []).toEqual([]);
    expect(h.permissions).toHaveLength(1);
    const question = h.permissions[0];
    expect(question?.toolCall.content?.some((c) => c.type === "diff")).toBe(false);
    expect(contentText(question?.toolCall.content)).toContain("more diff lines not shown");
    expect(longest(h.lines)).toBeLessThan(3 * 1024 * 1024);
  });

  test(
    "the one bound per message holds on the real path: under a small bound, the 900 " +
      "KB diff goes out cut and the turn goes on",
    async () => {
      const content = `${"line of text\n".repeat(70_000)}end`;
      const model = new FakeModelClient([
        fake.toolCall("write_file", { path: "big.txt", content }, { id: "call_w" }),
        fake.text("Done after the cut."),
      ]);
      await using h = startHarness({ models: [model], server: { maxSentBytes: 300_000 } });
      h.answer = () => ({ outcome: { outcome: "selected", optionId: "deny" } });
      await h.initialize();
      const { sessionId } = await h.newSession();
      expect((await h.prompt(sessionId, "Write big.txt.")).stopReason).toBe("end_turn");
      expect(longest(h.lines)).toBeLessThanOrEqual(300_000);
      const call = ofKind(h.updatesOf(sessionId), "tool_call").find((u) => u.toolCallId === "call_w");
      const diff = call?.content?.[0];
      expect(diff?.type === "diff" && diff.newText).toMatch(LEFT_OUT);
      expect(h.permissions).toHaveLength(1);
      expect(messageText(h.updatesOf(sessionId))).toContain("Done after the cut.");
    },
  );

  test(
    "the bound counts a line's UTF-8 bytes: a message under it by UTF-16 length but " +
      "over it in bytes goes out cut; each message is one whole line",
    async () => {
      const written: string[] = [];
      const logged: string[] = [];
      const decoder = new TextDecoder();
      const output = new WritableStream<Uint8Array>({ write: (chunk) => void written.push(decoder.decode(chunk)) });
      const editor = editorStream(
        { input: new ReadableStream<Uint8Array>(), output },
        { maxMessageBytes: 1 << 20, maxSentBytes: 1000, log: (text) => logged.push(text) },
      );
      const chunk = (text: string) => ({
        jsonrpc: "2.0" as const,
        method: "session/update",
        params: { sessionId: "s", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } } },
      });
      const writer = editor.stream.writable.getWriter();
      // 700 "é": 700 UTF-16 units, under the bound, but 1,400 bytes of UTF-8, over it.
      await writer.write(chunk("é".repeat(700)) as never);
      // Negative control: 300 "é" (600 bytes) fit and go out as they are.
      await writer.write(chunk("é".repeat(300)) as never);
      expect(written).toHaveLength(2);
      for (const line of written) {
        expect(line.endsWith("\n")).toBe(true);
        expect(Buffer.byteLength(line) - 1).toBeLessThanOrEqual(1000);
      }
      const [cut, whole] = written.map((line) => JSON.parse(line) as ReturnType<typeof chunk>);
      expect(cut?.params.update.content.text).toMatch(LEFT_OUT);
      expect(whole).toEqual(chunk("é".repeat(300)));
      expect(logged).toEqual([
        "garuda acp: a message (session/update) was larger than 1000 bytes; it was sent with its long texts cut.",
      ]);
    },
  );

  test("the one bound per message: a message over it goes out cut, a response that cannot be cut still answers", () => {
    const update = {
      jsonrpc: "2.0",
      method: "session/update",
      params: {
        sessionId: "s",
        update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "é".repeat(20_000_000) } },
      },
    };
    const bounded = boundMessage(update, MAX_EDITOR_MESSAGE_BYTES);
    expect(Buffer.byteLength(JSON.stringify(bounded))).toBeLessThanOrEqual(MAX_EDITOR_MESSAGE_BYTES);
    expect((bounded as typeof update).params.update.content.text).toMatch(LEFT_OUT);
    expect((bounded as typeof update).method).toBe("session/update");
    // Negative control: a message under the bound is the same object.
    const small = { jsonrpc: "2.0", method: "session/update", params: { text: "hi" } };
    expect(boundMessage(small, MAX_EDITOR_MESSAGE_BYTES)).toBe(small);
    expect(boundMessage({ jsonrpc: "2.0", id: 7, result: { text: "x".repeat(100) } }, 20)).toEqual({
      jsonrpc: "2.0",
      id: 7,
      error: { code: -32603, message: expect.stringContaining("could not be cut to fit") },
    });
  });

  test("the field cuts: a call's result and progress, a notice, and each rawInput string, with a marker", () => {
    const mapper = new EventMapper(new KnownCalls(), "/r");
    const big = "q".repeat(MAX_CONTENT_CHARS + 1_000);
    const [call] = mapper.map({
      type: "tool_call",
      callId: "c1",
      tool: "mcp__s__t",
      input: { list: [big, "short"], nested: { deeper: big } },
      info: { title: "t", kind: "other", locations: [] },
    });
    const raw =
      call?.sessionUpdate === "tool_call"
        ? (call.rawInput as { list: string[]; nested: { deeper: string } })
        : undefined;
    expect(raw?.list[0]).toEndWith(
      `[… ${(big.length - MAX_RAW_INPUT_CHARS).toLocaleString("en-US")} more characters left out]`,
    );
    expect(raw?.list[1]).toBe("short");
    expect(raw?.nested.deeper).toMatch(LEFT_OUT);
    const [progress] = mapper.map({ type: "tool_progress", callId: "c1", text: big });
    const [result] = mapper.map({ type: "tool_result", callId: "c1", status: "completed", output: big });
    for (const update of [progress, result]) {
      const text = update?.sessionUpdate === "tool_call_update" ? contentText(update.content) : "";
      expect(text.length).toBeLessThanOrEqual(MAX_CONTENT_CHARS);
      // Cut before the fence goes on: the marker, then the closing fence, so the block stays closed.
      expect(text).toStartWith("```\n");
      expect(text).toEndWith("[… 1,200 more characters left out]\n```");
    }
    const notice = mapper
      .notice("n".repeat(50_000))
      .map((u) => (u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" ? u.content.text : ""))
      .join("");
    expect(notice.length).toBeLessThan(21_000);
    expect(notice).toMatch(LEFT_OUT);
  });
});

describe("names are shown safely to the editor", () => {
  const NAMES = ["esc\u001b[2Jname.txt", "new\nline.txt", "rtl\u202Etxt.exe", "plain.txt"];

  test(
    "a file name with ESC, a newline or U+202E: left out of locations, visible in " + "the title, raw nowhere",
    async () => {
      const model = new FakeModelClient([
        fake.toolCalls(NAMES.map((path, index) => ({ name: "read_file", input: { path }, id: `call_${index}` }))),
        fake.text("Read them: esc\u001b[31m red, rtl\u202Eexe."),
      ]);
      await using h = startHarness({ models: [model] });
      for (const name of NAMES) writeFileSync(join(h.root, name), "text with \u001b[2J and \u202E in it\n");
      await h.initialize();
      const { sessionId } = await h.newSession();
      expect((await h.prompt(sessionId, "Read the files.")).stopReason).toBe("end_turn");
      const calls = ofKind(h.updatesOf(sessionId), "tool_call");
      expect(calls).toHaveLength(4);
      // Negative control: the plain name is a location; the others are not, and their titles show what they hold.
      expect(calls.map((call) => call.locations?.map((l) => l.path) ?? [])).toEqual([
        [],
        [],
        [],
        [join(h.root, "plain.txt")],
      ]);
      expect(calls.map((call) => call.title)).toEqual([
        "Read esc⟨U+001B⟩[2Jname.txt",
        "Read new ↵ line.txt",
        "Read rtl⟨U+202E⟩txt.exe",
        "Read plain.txt",
      ]);
      expect(messageText(h.updatesOf(sessionId))).toContain("esc⟨U+001B⟩[31m red, rtl⟨U+202E⟩exe.");
      // Every line the editor read: no ESC (JSON writes it \u001b), no U+202E anywhere; and no name
      // with its newline outside rawInput (the model's input, shown as it wrote it, hidden characters visible).
      expect(h.lines.length).toBeGreaterThan(5);
      for (const line of h.lines) {
        expect(line).not.toContain("\\u001b");
        expect(line).not.toContain("\u202E");
        const { rawInput: _shownAsWritten, ...rest } = (JSON.parse(line).params?.update ?? {}) as Record<
          string,
          unknown
        >;
        expect(JSON.stringify(rest)).not.toContain("new\\nline");
      }
    },
  );

  test("a call id a server made up with control characters reaches the editor as a plain stand-in", async () => {
    const model = new FakeModelClient([
      fake.toolCall("read_file", { path: "plain.txt" }, { id: "call\u001b[2J\u202E" }),
      fake.text("Done."),
    ]);
    await using h = startHarness({ models: [model], files: { "plain.txt": "hi" } });
    await h.initialize();
    const { sessionId } = await h.newSession();
    await h.prompt(sessionId, "Read.");
    const ids = [
      ...ofKind(h.updatesOf(sessionId), "tool_call"),
      ...ofKind(h.updatesOf(sessionId), "tool_call_update"),
    ].map((u) => u.toolCallId);
    expect(ids.length).toBeGreaterThanOrEqual(2);
    expect(new Set(ids).size).toBe(1);
    expect(ids[0]).toMatch(/^call-[0-9a-f]{24}$/);
    for (const line of h.lines) expect(line).not.toContain("\\u001b");
  });
});
