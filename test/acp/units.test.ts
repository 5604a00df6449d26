// The pieces of the ACP front end on their own: the approver's questions and answers, the prompt
// text, tool call titles and kinds, and the mapping of AgentEvents to session/update payloads.
import { describe, expect, test } from "bun:test";
import type * as acp from "@agentclientprotocol/sdk";
import { AcpApprover, choiceOf, permissionOptions, type PermissionRequester } from "../../src/acp/approver.ts";
import { codeBlock, escapeMarkdown, fence, inlineCode, languageOf } from "../../src/acp/codeBlock.ts";
import { promptText } from "../../src/acp/prompt.ts";
import { mentionedPaths } from "../../src/runtime/mentions.ts";
import { MAX_HIDDEN_LINES, questionContent } from "../../src/acp/question.ts";
import { serverToolResult, toolCallView } from "../../src/acp/toolCalls.ts";
import { EventMapper } from "../../src/acp/eventMapper.ts";
import { MAX_DIFF_BYTES } from "../../src/acp/toolCallContent.ts";
import { KnownCalls, SessionChannel } from "../../src/acp/sessionChannel.ts";
import { HIDDEN_WARNING } from "../../src/cli/approver.ts";
import { serverToolInfo } from "../../src/model/serverTools.ts";
import { CHOICE_LABELS } from "../../src/permission/approvals.ts";
import type { ApprovalRequest } from "../../src/permission/types.ts";
import { readSourceTree, staticClosure } from "../support/architecture.ts";

const root = "/work/project";

function request(overrides: Partial<ApprovalRequest> = {}): ApprovalRequest {
  return {
    tool: "write_file",
    title: "Write a.txt",
    preview: "+hello",
    choices: ["once", "session", "deny"],
    labels: { ...CHOICE_LABELS },
    hidden: false,
    ...overrides,
  };
}

function channel(): { channel: SessionChannel; sent: acp.SessionUpdate[] } {
  const sent: acp.SessionUpdate[] = [];
  const ch = new SessionChannel(async (update) => {
    sent.push(update);
  });
  ch.open();
  return { channel: ch, sent };
}

function approver(requester: PermissionRequester, calls = new KnownCalls()) {
  const { channel: ch, sent } = channel();
  const asked: acp.RequestPermissionRequest[] = [];
  const acpApprover = new AcpApprover({
    sessionId: "s1",
    channel: ch,
    calls,
    request: (params, signal) => {
      asked.push(params);
      return requester(params, signal);
    },
    // No forms: every question is a permission request (the forms are asker.test.ts's and forms.test.ts's).
    asker: { ask: async () => ({ outcome: "declined" }) },
    forms: false,
  });
  return { approver: acpApprover, asked, sent, channel: ch, calls };
}

/** The text of one content part. */
const textOf = (content: acp.ToolCallContent | undefined): string =>
  content?.type === "content" && content.content.type === "text" ? content.content.text : "";

const selected = (optionId: string): acp.RequestPermissionResponse => ({ outcome: { outcome: "selected", optionId } });

describe("AcpApprover", () => {
  test("a question about a call the editor knows names that call's id", async () => {
    const calls = new KnownCalls();
    calls.add({ id: "toolu_1", title: "Write a.txt", kind: "edit" });
    calls.add({ id: "toolu_2", title: "Write b.txt", kind: "edit" });
    const a = approver(async () => selected("session"), calls);
    expect(await a.approver.ask(request({ callId: "toolu_2" }), new AbortController().signal)).toBe("session");
    expect(a.asked[0]?.toolCall).toMatchObject({
      toolCallId: "toolu_2",
      title: "Write a.txt",
      kind: "edit",
      status: "pending",
    });
    // Allowed before it runs: its tool_start shows it running, not the answer.
    expect(a.sent).toEqual([]);
  });

  test("a question about a call that already runs shows it waiting, and running again after a yes", async () => {
    const calls = new KnownCalls();
    calls.add({ id: "toolu_run", title: "$ make", kind: "execute", running: true });
    const a = approver(async () => selected("once"), calls);
    expect(
      await a.approver.ask(
        request({ callId: "toolu_run", tool: "bash", title: "$ make", preview: "make" }),
        new AbortController().signal,
      ),
    ).toBe("once");
    expect(a.asked[0]?.toolCall.status).toBe("pending");
    expect(a.sent).toEqual([{ sessionUpdate: "tool_call_update", toolCallId: "toolu_run", status: "in_progress" }]);
  });

  test(
    "a question about no known call (a subagent's call, a consent) gets its own " +
      "entry first, closed with the answer",
    async () => {
      const a = approver(async () => selected("once"));
      const question = request({
        callId: "toolu_inside_subagent",
        parentCallId: "toolu_explore",
        tool: "mcp",
        title: "MCP server: github",
        question: "Start this MCP server?",
        choices: ["once", "deny"],
      });
      expect(await a.approver.ask(question, new AbortController().signal)).toBe("once");
      expect(await a.approver.ask({ ...question, callId: undefined }, new AbortController().signal)).toBe("once");
      expect(a.asked.map((p) => p.toolCall.toolCallId)).toEqual(["garuda-question-1", "garuda-question-2"]);
      expect(a.sent[0]).toMatchObject({
        sessionUpdate: "tool_call",
        toolCallId: "garuda-question-1",
        kind: "other",
        status: "pending",
        title: "MCP server: github",
      });
      expect(a.sent[1]).toMatchObject({
        sessionUpdate: "tool_call_update",
        toolCallId: "garuda-question-1",
        status: "completed",
      });
      expect(a.asked[0]?.options.map((o) => o.kind)).toEqual(["allow_once", "reject_once"]);
    },
  );

  test("a question from inside a subagent is named with the subagent's card, so the user sees who asks", async () => {
    const calls = new KnownCalls();
    calls.add({ id: "toolu_agent", title: "Subagent: reviewer", kind: "think" });
    const a = approver(async () => selected("once"), calls);
    await a.approver.ask(
      request({ callId: "toolu_inner", parentCallId: "toolu_agent", title: "Write new.txt" }),
      new AbortController().signal,
    );
    expect(a.sent[0]).toMatchObject({ sessionUpdate: "tool_call", title: "Subagent: reviewer › Write new.txt" });
    expect(a.asked[0]?.toolCall.title).toBe("Subagent: reviewer › Write new.txt");
  });

  test("cancelled, an unknown option, a transport error: deny", async () => {
    for (const requester of [
      async () => ({ outcome: { outcome: "cancelled" } }) as acp.RequestPermissionResponse,
      async () => selected("always"),
      async () => selected("session"),
      async () => {
        throw new Error("ACP connection closed");
      },
    ]) {
      const a = approver(requester);
      expect(await a.approver.ask(request({ choices: ["once", "deny"] }), new AbortController().signal)).toBe("deny");
    }
  });

  test("a stopped turn answers deny at once and stops waiting; no question while no prompt runs", async () => {
    let cancelled = false;
    const a = approver(
      (_params, signal) =>
        new Promise((_, reject) => {
          signal.addEventListener("abort", () => {
            cancelled = true;
            reject(new Error("cancelled"));
          });
        }),
    );
    const controller = new AbortController();
    const answer = a.approver.ask(request(), controller.signal);
    controller.abort();
    expect(await answer).toBe("deny");
    expect(cancelled).toBe(true);
    expect(await a.approver.ask(request(), controller.signal)).toBe("deny");
    a.channel.close();
    expect(await a.approver.ask(request(), new AbortController().signal)).toBe("deny");
    expect(a.asked).toHaveLength(1);
  });

  test("options follow the request's choices and labels; the answer maps back", () => {
    const labels = { once: "Yes, once", session: "Yes, for this session", deny: "No" };
    const options = permissionOptions(request({ labels }));
    expect(options).toEqual([
      { optionId: "once", name: "Yes, once", kind: "allow_once" },
      { optionId: "session", name: "Yes, for this session", kind: "allow_always" },
      { optionId: "deny", name: "No", kind: "reject_once" },
    ]);
    expect(choiceOf(selected("deny"), request())).toBe("deny");
    expect(choiceOf(selected("once"), request())).toBe("once");
  });

  test(
    "an edit question: the ACP diff, and as text only what the diff cannot show (no " + "second copy of the diff)",
    () => {
      const change = { path: "/work/project/a.txt", oldText: "old\n", newText: "new\n" };
      const preview = "--- a/a.txt\n+++ b/a.txt\n@@ -1,1 +1,1 @@\n-old\n+new";
      // No session choice, no note, nothing hidden: the diff alone.
      expect(questionContent(request({ change, preview, choices: ["once", "deny"] }))).toEqual([
        { type: "diff", path: change.path, oldText: "old\n", newText: "new\n" },
      ]);
      const scoped = questionContent(
        request({
          change,
          preview,
          sessionRules: ["edit_file(./**)"],
          labels: { ...CHOICE_LABELS, session: "Allow all edits for this session" },
        }),
      );
      expect(scoped.map((c) => c.type)).toEqual(["diff", "content"]);
      expect(textOf(scoped[1])).toBe("“Allow all edits for this session” allows: `edit_file(./**)`");
      // The reason it asks and a symlink the write goes through are not in the diff view.
      const linked = questionContent(
        request({
          change,
          preview: `(a.txt is a symlink to /etc/x)\n${preview}`,
          note: "It is outside the project folder.",
          choices: ["once", "deny"],
        }),
      );
      expect(textOf(linked[1])).toBe("(It is outside the project folder.)\n\n```\n(a.txt is a symlink to /etc/x)\n```");
      expect(textOf(linked[1])).not.toContain("+new");
    },
  );

  test(
    "hidden characters in an edit: the warning and only the lines that hold them, " + "made visible, before the diff",
    () => {
      const newText = `${Array.from({ length: 300 }, (_, i) => `line ${i}`).join("\n")}\nconst ok = "safe\u202E";\n`;
      const change = { path: "/work/project/a.ts", oldText: null, newText };
      const hidden = questionContent(
        request({
          change,
          hidden: true,
          preview: "--- /dev/null\n+++ b/a.ts\n@@ -0,0 +1,3 @@\n+line 0\n… 298 more diff lines not shown",
        }),
      );
      expect(hidden.map((c) => c.type)).toEqual(["content", "diff"]);
      const text = textOf(hidden[0]);
      expect(text).toStartWith(HIDDEN_WARNING);
      // The line past the preview's cut is found in the change itself.
      expect(text).toContain('+const ok = "safe⟨U+202E⟩";');
      expect(text).not.toContain("\u202E");
      expect(text).not.toContain("line 7");
      const many = {
        path: change.path,
        oldText: null,
        newText: Array.from({ length: 30 }, (_, i) => `x${i}\u200B`).join("\n"),
      };
      const listed = textOf(questionContent(request({ change: many, hidden: true, preview: "" }))[0]);
      expect(listed).toContain(`… ${30 - MAX_HIDDEN_LINES} more lines with hidden characters`);
    },
  );

  test("above 1 MB: the text preview alone, fenced; a command's preview is fenced so `*` stays a `*`", () => {
    const big = {
      path: "/work/project/a.txt",
      oldText: "a".repeat(MAX_DIFF_BYTES / 2),
      newText: "b".repeat(MAX_DIFF_BYTES / 2 + 1),
    };
    const alone = questionContent(request({ change: big, preview: "--- a/a.txt\n+++ b/a.txt\n-aaa\n+bbb" }));
    expect(alone.map((c) => c.type)).toEqual(["content"]);
    expect(textOf(alone[0])).toBe("```diff\n--- a/a.txt\n+++ b/a.txt\n-aaa\n+bbb\n```");
    const command = questionContent(
      request({
        tool: "bash",
        title: "$ rm *.log",
        preview: "rm *.log *.tmp # `x`\u202E",
        hidden: true,
        sessionRules: ["bash(rm *)"],
        question: "Run this?\u202E",
      }),
    );
    expect(textOf(command[0])).toBe(
      `Run this?⟨U+202E⟩\n\n${HIDDEN_WARNING}\n\n\`\`\`\nrm *.log *.tmp # ` +
        `\`x\`⟨U+202E⟩\n\`\`\`\n\n“Allow for this session” allows: \`bash(rm *)\``,
    );
  });
});

describe("codeBlock", () => {
  test("the fence is longer than any run of backticks, so no line of the text can close it", () => {
    expect(fence("plain")).toBe("```");
    expect(fence("a ``` b ````` c")).toBe("``````");
    const text = "before\n```\nnot closed\n````";
    const block = codeBlock(text, "md");
    expect(block).toBe(`\`\`\`\`\`md\n${text}\n\`\`\`\`\``);
    // The block ends at its own last line: no line inside is a fence as long as it.
    const marks = block.split("\n")[0]?.replace("md", "") ?? "";
    expect(
      block
        .split("\n")
        .slice(1, -1)
        .some((line) => line.trim().startsWith(marks)),
    ).toBe(false);
    expect(codeBlock("x", "a`b\nc")).toBe("```a b c\nx\n```");
  });

  test("inline code takes a backtick run the text does not hold", () => {
    expect(inlineCode("bash(npm test *)")).toBe("`bash(npm test *)`");
    expect(inlineCode("echo `x` *")).toBe("``echo `x` *``");
    expect(inlineCode("`x")).toBe("`` `x ``");
    expect(inlineCode("a\nb")).toBe("`a b`");
  });

  test("escapeMarkdown leaves no markup character bare", () => {
    const escaped = escapeMarkdown("# [a](b) ![c](d) <e> _f_ `g` |h| ~i~ 1. +j -k");
    expect(escaped.replace(/\\./g, "")).not.toMatch(/[\\`*_{}[\]<>()#+\-.!|~]/);
    expect(escaped.replace(/\\(.)/g, "$1")).toBe("# [a](b) ![c](d) <e> _f_ `g` |h| ~i~ 1. +j -k");
  });

  test("languages: known names, plain extensions, file names, nothing for odd ones", () => {
    expect(languageOf("/p/src/a.ts")).toBe("typescript");
    expect(languageOf("/p/main.RS")).toBe("rust");
    expect(languageOf("/p/Makefile")).toBe("make");
    expect(languageOf("/p/notes.txt")).toBe("txt");
    expect(languageOf("/p/README")).toBeUndefined();
    expect(languageOf("/p/x.a`b")).toBeUndefined();
  });
});

describe("promptText", () => {
  test("text, links in and out of the root, a folder link with a blank, embedded and binary resources, images", () => {
    const text = promptText(
      [
        { type: "text", text: "Look at" },
        { type: "resource_link", uri: "file:///work/project/src/a.ts", name: "a.ts" },
        { type: "resource_link", uri: "file:///work/project/my%20notes.md", name: "my notes.md" },
        { type: "resource_link", uri: "file:///etc/hosts", name: "hosts" },
        { type: "resource_link", uri: "https://example.com/doc", name: "doc" },
        { type: "resource", resource: { uri: "zed://rules/b", text: "const fence = '```';" } },
        { type: "resource", resource: { uri: "zed://blob", blob: "AAAA" } },
        { type: "image", data: "AAAA", mimeType: "image/png" },
      ],
      root,
    );
    expect(text).toBe(
      [
        'Look at @src/a.ts @"my notes.md" hosts (file:///etc/hosts) doc (https://example.com/doc)',
        "",
        "````zed://rules/b",
        "const fence = '```';",
        "````",
        "",
        // An image goes as an image of its own (promptImages), not as text.
        "[zed://blob: binary content, not included]",
      ].join("\n"),
    );
  });

  test("an embedded file (or a selection in one) is a mention of its path, never the editor's text", () => {
    const text = promptText(
      [
        { type: "text", text: "See" },
        { type: "resource", resource: { uri: "file:///work/project/b.ts", text: "EDITOR-COPY-B" } },
        { type: "resource", resource: { uri: "file:///work/project/src/c%20(1).ts#L3:5", text: "EDITOR-COPY-C" } },
        { type: "resource", resource: { uri: "file:///etc/ssh/ssh_config#L7", text: "EDITOR-COPY-ETC" } },
      ],
      root,
    );
    expect(text).toBe(
      'See @b.ts @"src/c (1).ts" (lines 3-5 selected in the editor) ' +
        "@/etc/ssh/ssh_config (line 7 selected in the editor)",
    );
    expect(mentionedPaths(text)).toEqual(["b.ts", "src/c (1).ts", "/etc/ssh/ssh_config"]);
  });

  test("plain text stays as typed", () => {
    expect(promptText([{ type: "text", text: "/review the parser" }], root)).toBe("/review the parser");
    expect(
      promptText(
        [
          { type: "text", text: "line 1\n" },
          { type: "text", text: "line 2" },
        ],
        root,
      ),
    ).toBe("line 1\nline 2");
  });
});

describe("toolCalls", () => {
  test("kinds and titles of Garuda's tools; titles one visible line; absolute locations", () => {
    expect(toolCallView("bash", { title: "$ rm -rf /\u202Etmp\nls", kind: "execute", locations: [] }, root)).toEqual({
      title: "$ rm -rf /⟨U+202E⟩tmp ↵ ls",
      kind: "execute",
      locations: [],
    });
    expect(
      toolCallView("read_file", { title: "Read a.ts", kind: "read", locations: [{ path: "src/a.ts", line: 3 }] }, root),
    ).toEqual({
      title: "Read a.ts",
      kind: "read",
      locations: [{ path: "/work/project/src/a.ts", line: 3 }],
    });
    expect(toolCallView("grep", { title: "Search foo", kind: "other", locations: [] }, root).kind).toBe("search");
    expect(toolCallView("todo", { title: "Update the plan", kind: "think", locations: [] }, root)).toMatchObject({
      title: "Update the plan",
      kind: "think",
    });
    expect(toolCallView("explore", { title: "explore", kind: "think", locations: [] }, root)).toMatchObject({
      title: "Subagent: explore",
      kind: "think",
    });
    expect(
      toolCallView(
        "mcp__github__create_issue",
        { title: "mcp__github__create_issue", kind: "other", locations: [] },
        root,
      ),
    ).toMatchObject({
      title: "github/create_issue",
      kind: "other",
    });
    expect(serverToolResult("1 result", [{ type: "web_search_result", title: "Bun", url: "https://bun.sh" }])).toBe(
      "1 result\n- Bun (https://bun.sh)",
    );
    // A page's title cannot become an image (a request to its server), a link or emphasis.
    expect(
      serverToolResult("1 result", [
        { type: "web_search_result", title: "![x](https://evil.example/p.png) *hi*", url: "https://a.dev" },
      ]),
    ).toBe("1 result\n- \\!\\[x\\]\\(https://evil\\.example/p\\.png\\) \\*hi\\* (https://a.dev)");
  });
});

describe("EventMapper", () => {
  test(
    "events to updates; notices on a line of their own; calls inside a subagent " + "show only on the subagent's card",
    () => {
      const calls = new KnownCalls();
      const mapper = new EventMapper(calls, root);
      expect(mapper.map({ type: "text_delta", text: "Hello", messageId: "m1" })).toEqual([
        { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Hello" }, messageId: "m1" },
      ]);
      // A Garuda line is a message of its own: one new id for its chunks.
      const noticeId = expect.stringMatching(/^[0-9a-f-]{36}$/);
      const notice = mapper.map({ type: "notice", level: "warning", text: "No OS sandbox" });
      expect(notice).toEqual([
        { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "\n\n" }, messageId: noticeId },
        {
          sessionUpdate: "agent_message_chunk",
          content: { type: "text", text: "Garuda: No OS sandbox\n\n" },
          messageId: noticeId,
        },
      ]);
      const [separator, line] = notice as Array<{ messageId: string }>;
      expect(line?.messageId).toBe(separator?.messageId as string);
      // Text without an id (none the Runtime sends) goes on with the last chunk's id while its kind lasts.
      const [a] = mapper.map({ type: "text_delta", text: "x" }) as Array<{ messageId: string }>;
      const [b] = mapper.map({ type: "text_delta", text: "y" }) as Array<{ messageId: string }>;
      const [c] = mapper.map({ type: "thinking_delta", text: "z" }) as Array<{ messageId: string }>;
      mapper.beginTurn();
      expect(b?.messageId).toBe(a?.messageId as string);
      expect(c?.messageId).not.toBe(a?.messageId as string);
      expect(mapper.map({ type: "compaction", beforeTokens: 150_000, afterTokens: 20_000 })[0]).toMatchObject({
        content: { text: expect.stringContaining("Garuda: the conversation was compacted") },
      });
      expect(
        mapper.map({ type: "model_retry", attempt: 2, delayMs: 1000, reason: "529 overloaded", partial: true })[0],
      ).toMatchObject({ content: { text: expect.stringContaining("starts again") } });
      // Nothing was shown before the failure: nothing is said to be void.
      const early = mapper.map({
        type: "model_retry",
        attempt: 2,
        delayMs: 1000,
        reason: "529 overloaded",
        partial: false,
      });
      expect(early[early.length - 1]).toMatchObject({
        content: { text: "Garuda: the model did not answer (529 overloaded); trying again (attempt 2, in 1 s).\n\n" },
      });
      expect(
        mapper.map({
          type: "step_end",
          step: 1,
          usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheCreationTokens: 0 },
        }),
      ).toEqual([]);

      mapper.map({
        type: "tool_call",
        callId: "t1",
        tool: "explore",
        input: {},
        info: { title: "explore", kind: "think", locations: [] },
      });
      expect(
        mapper.map({
          type: "tool_call",
          callId: "inner",
          tool: "read_file",
          input: {},
          info: { title: "Read x.ts", kind: "read", locations: [] },
          parentCallId: "t1",
        }),
      ).toEqual([]);
      expect(mapper.map({ type: "tool_progress", callId: "t1", text: "Read x.ts" })).toEqual([
        {
          sessionUpdate: "tool_call_update",
          toolCallId: "t1",
          status: "in_progress",
          content: [{ type: "content", content: { type: "text", text: "```\nRead x.ts\n```" } }],
        },
      ]);
      expect(calls.open("inner")).toBeUndefined();
      expect(
        mapper.map({ type: "tool_result", callId: "inner", status: "completed", output: "x", parentCallId: "t1" }),
      ).toEqual([]);
      expect(mapper.map({ type: "tool_progress", callId: "t1", text: "line\u001b[31m" })[0]).toMatchObject({
        status: "in_progress",
        content: [{ content: { text: "```\nline⟨U+001B⟩[31m\n```" } }],
      });
      expect(
        mapper.map({ type: "tool_result", callId: "t1", status: "denied", output: "Permission denied: no" })[0],
      ).toMatchObject({ status: "failed" });
      expect(mapper.map({ type: "tool_result", callId: "t1", status: "completed", output: "again" })).toEqual([]);

      mapper.map({
        type: "server_tool",
        callId: "srv",
        name: "web_search",
        input: { query: "bun acp" },
        status: "started",
        info: serverToolInfo("web_search", { query: "bun acp" }),
      });
      expect(calls.open("srv")).toMatchObject({ title: "Search the web: bun acp", kind: "fetch", server: true });
      expect(
        mapper.map({
          type: "server_tool",
          callId: "srv",
          name: "web_search",
          input: null,
          status: "completed",
          result: [],
          summary: "0 results",
        })[0],
      ).toMatchObject({ status: "completed" });
    },
  );

  test(
    "a call goes in_progress when its tool starts (tool_start), not at its first " + "output; nothing after a stop",
    () => {
      const calls = new KnownCalls();
      const mapper = new EventMapper(calls, root);
      const [call] = mapper.map({
        type: "tool_call",
        callId: "c1",
        tool: "bash",
        input: { command: "sleep 5" },
        info: { title: "$ sleep 5", kind: "execute", locations: [] },
      });
      expect(call).toMatchObject({ sessionUpdate: "tool_call", status: "pending" });
      expect(mapper.map({ type: "tool_start", callId: "c1" })).toEqual([
        { sessionUpdate: "tool_call_update", toolCallId: "c1", status: "in_progress" },
      ]);
      expect(calls.open("c1")?.running).toBe(true);
      // A call inside a subagent shows on the subagent's card only; a stopped turn sends nothing more.
      expect(mapper.map({ type: "tool_start", callId: "inner", parentCallId: "c1" })).toEqual([]);
      mapper.map({
        type: "tool_call",
        callId: "c2",
        tool: "bash",
        input: { command: "make" },
        info: { title: "$ make", kind: "execute", locations: [] },
      });
      calls.stop();
      expect(mapper.map({ type: "tool_start", callId: "c2" })).toEqual([]);
    },
  );

  test(
    "output keeps its lines: results and progress as fenced code (the file's " +
      "language for a read); denials and a subagent's answer as prose",
    () => {
      const mapper = new EventMapper(new KnownCalls(), root);
      const result = (
        callId: string,
        tool: string,
        info: {
          title: string;
          kind: "read" | "execute" | "think" | "search" | "other";
          locations: Array<{ path: string }>;
        },
        output: string,
        status: "completed" | "failed" | "denied" = "completed",
      ) => {
        mapper.map({ type: "tool_call", callId, tool, input: {}, info });
        const [update] = mapper.map({ type: "tool_result", callId, status, output });
        return update?.sessionUpdate === "tool_call_update" ? (update.content ?? []).map(textOf).join("\n") : "";
      };
      const file = "     1\t# Title\n     2\tconst a = `x ${'```'} y`; // *not* bold\n";
      expect(
        result(
          "r1",
          "read_file",
          { title: "Read a.ts", kind: "read", locations: [{ path: "/work/project/src/a.ts" }] },
          file,
        ),
      ).toBe(`\`\`\`\`typescript\n${file}\`\`\`\``);
      expect(
        result(
          "r2",
          "read_file",
          { title: "Read a.ts", kind: "read", locations: [{ path: "/work/project/src/a.ts" }] },
          "Error: a.ts does not exist.",
          "failed",
        ),
      ).toBe("```\nError: a.ts does not exist.\n```");
      expect(
        result("b1", "bash", { title: "$ ls", kind: "execute", locations: [] }, "Exit code: 0\n* a\n# b\n_c_"),
      ).toBe("```\nExit code: 0\n* a\n# b\n_c_\n```");
      expect(result("g1", "grep", { title: "Search x", kind: "search", locations: [] }, "a.ts:1:x\u202E")).toBe(
        "```\na.ts:1:x⟨U+202E⟩\n```",
      );
      expect(
        result(
          "m1",
          "mcp__web__get",
          { title: "mcp__web__get", kind: "other", locations: [] },
          "![pixel](https://evil.example/?k=1)",
        ),
      ).toBe("```\n![pixel](https://evil.example/?k=1)\n```");
      expect(
        result(
          "d1",
          "bash",
          { title: "$ rm x", kind: "execute", locations: [] },
          "Permission denied: The user denied this.",
          "denied",
        ),
      ).toBe("Permission denied: The user denied this.");
      expect(
        result("s1", "explore", { title: "explore", kind: "think", locations: [] }, "## Found\n- a.ts does it"),
      ).toBe("## Found\n- a.ts does it");
      expect(result("t1", "todo", { title: "Update the plan", kind: "think", locations: [] }, "[x] one\n[ ] two")).toBe(
        "```\n[x] one\n[ ] two\n```",
      );
    },
  );

  test("rawInput is shown with hidden characters made visible", () => {
    const mapper = new EventMapper(new KnownCalls(), root);
    const [call] = mapper.map({
      type: "tool_call",
      callId: "c1",
      tool: "bash",
      input: { command: "ls\u202E", timeout_ms: 5000, env: ["a\u200Bb"] },
      info: { title: "$ ls", kind: "execute", locations: [] },
    });
    expect(call).toMatchObject({ rawInput: { command: "ls⟨U+202E⟩", timeout_ms: 5000, env: ["a⟨U+200B⟩b"] } });
  });

  test("after a stop: a result is failed even when it says completed, progress is dropped", () => {
    const calls = new KnownCalls();
    const mapper = new EventMapper(calls, root);
    mapper.map({
      type: "tool_call",
      callId: "c1",
      tool: "bash",
      input: { command: "sleep 60" },
      info: { title: "$ sleep 60", kind: "execute", locations: [] },
    });
    calls.stop();
    expect(mapper.map({ type: "tool_progress", callId: "c1", text: "late" })).toEqual([]);
    expect(
      mapper.map({ type: "tool_result", callId: "c1", status: "completed", output: "Exit code: none" })[0],
    ).toMatchObject({ status: "failed" });
    expect(calls.ended().map((c) => c.title)).toEqual(["$ sleep 60"]);
  });

  test("the channel hands updates over at once, in order, and drops them while no prompt runs", async () => {
    const handed: string[] = [];
    let written = 0;
    const ch = new SessionChannel(async (update) => {
      handed.push(update.sessionUpdate);
      await Bun.sleep(5);
      written++;
    });
    expect(ch.send({ sessionUpdate: "current_mode_update", currentModeId: "plan" })).toBe(false);
    ch.open();
    ch.send({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "a" } });
    ch.send({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "b" } });
    expect(handed).toEqual(["agent_message_chunk", "agent_thought_chunk"]);
    await ch.flush();
    expect(written).toBe(2);
    ch.close();
    expect(ch.send({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "c" } })).toBe(false);
    expect(handed).toHaveLength(2);
  });
});

describe("start-up", () => {
  test("before initialize is answered only the SDK and small modules load; the core waits for session/new", () => {
    const tree = readSourceTree(`${import.meta.dir}/../..`);
    const loaded = [
      ...staticClosure(tree, ["src/cli/index.ts", "src/cli/main.ts", "src/cli/acpCommand.ts", "src/acp/server.ts"]),
    ];
    const small = new Set([
      "src/errors/configError.ts",
      "src/errors/caught.ts",
      "src/files/entryKind.ts",
      "src/config/paths.ts",
      "src/config/providerKeys.ts",
      "src/model/catalog.ts",
      "src/model/images.ts",
      "src/model/types.ts",
      "src/tools/webSearch.ts",
      // The hunk review's pure line diff (no imports of its own).
      "src/tools/hunks.ts",
      "src/tools/diff.ts",
      "src/runtime/retryNotice.ts",
      "src/runtime/builtinNames.ts",
      // The session's prompt queue (no imports of its own).
      "src/runtime/promptQueue.ts",
      // Message ids (no imports of its own but a type).
      "src/store/messageIds.ts",
      "src/version.ts",
      "src/sandbox/keeperName.ts",
      "src/core-types/withdrawn.ts",
      "src/core-types/question.ts",
      "src/untilAborted.ts",
    ]);
    const heavy = loaded.filter(
      (file) => file.startsWith("src/") && !/^src\/(acp|cli|display|text)\//.test(file) && !small.has(file),
    );
    expect(heavy).toEqual([]);
    for (const name of ["@anthropic-ai/sdk", "zod", "web-tree-sitter"]) expect(loaded).not.toContain(name);
    expect(loaded).toContain("@agentclientprotocol/sdk");
  });
});
