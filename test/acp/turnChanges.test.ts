// What a turn changed, at the end of the turn (issue 33, item 4), with the compiled binary as an
// editor runs it and the real OS sandbox: one summary tool call (kind edit, a diff per file) that
// names the file an edit tool changed, the files a sandboxed command wrote, and the gitignored
// ones as not tracked; JetBrains AIR's report when the prompt asks for it, complete only when it
// is (a gitignored folder that gained an entry may also have lost one; a new gitignored file at
// the top is seen whole).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { garudaBinary } from "../support/garudaBinary.ts";
import { startAgent } from "../support/acpAgent.ts";
import { startMockAnthropic } from "../support/mockAnthropic.ts";
import { describeSandbox } from "../support/sandboxSupport.ts";
import { makeTempDir } from "../support/tempDir.ts";

let work = "";
let binary = "";

beforeAll(
  async () => {
    work = makeTempDir("garuda-turn-changes-");
    binary = await garudaBinary();
  },
  { timeout: 180_000 },
);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

const AIR = { jetbrains: { air: { version: 1, capabilities: ["agentFileChangeReport"] } } };
const asks = (requestId: string) => ({
  jetbrains: { air: { agentFileChangeReportRequest: { version: 1, requestId } } },
});

type Report = { requestId: string; status: string; paths?: string[]; declaredComplete?: boolean; truncated?: boolean };

const reports = (updates: readonly acp.SessionUpdate[]): Report[] =>
  updates.flatMap((update) => {
    const meta = update.sessionUpdate === "session_info_update" ? update._meta : undefined;
    const report = (meta as { jetbrains?: { air?: { agentFileChangeReport?: Report } } } | undefined)?.jetbrains?.air
      ?.agentFileChangeReport;
    return report ? [report] : [];
  });

const summaries = (updates: readonly acp.SessionUpdate[]) =>
  updates.flatMap((update) =>
    update.sessionUpdate === "tool_call" && update.toolCallId.startsWith("turn-changes-") ? [update] : [],
  );

const textOf = (call: { content?: acp.ToolCallContent[] | null }) =>
  (call.content ?? []).map((c) => (c.type === "content" && c.content.type === "text" ? c.content.text : "")).join("");

describeSandbox(
  "what a turn changed, over ACP",
  () => {
    test("edit-tool and sandboxed-command writes in one summary with a diff each; " +
      "gitignored files named; AIR's report", async () => {
      await using mock = startMockAnthropic({
        apiKey: "sk-ant-process-test",
        script: [
          { steps: [{ type: "tool_use", name: "read_file", id: "toolu_r", input: { path: "notes.txt" } }] },
          {
            steps: [
              {
                type: "tool_use",
                name: "edit_file",
                id: "toolu_e",
                input: { path: "notes.txt", old_string: "old line", new_string: "new line" },
              },
            ],
          },
          {
            steps: [
              {
                type: "tool_use",
                name: "bash",
                id: "toolu_b",
                input: { command: "echo made > made.txt && echo log > run.log && echo obj > build/new.o" },
              },
            ],
          },
          { steps: [{ type: "text", text: "Done." }] },
          // Turn 2: a command writes one new gitignored file at the top, nothing else.
          { steps: [{ type: "tool_use", name: "bash", id: "toolu_b2", input: { command: "echo two > second.log" } }] },
          { steps: [{ type: "text", text: "Done again." }] },
          // Turn 3: no file changes.
          { steps: [{ type: "text", text: "Nothing to change." }] },
        ],
      });
      const root = realpathSync(makeTempDir("project-", { under: work }));
      writeFileSync(join(root, "notes.txt"), "old line\n");
      writeFileSync(join(root, ".gitignore"), "*.log\nbuild/\n");
      mkdirSync(join(root, "build"));
      writeFileSync(join(root, "build", "keep.o"), "kept\n");
      const editor = startAgent(binary, mock, root, work);
      try {
        const ready = await editor.agent.request(acp.methods.agent.initialize, {
          protocolVersion: 1,
          clientCapabilities: { _meta: AIR },
        });
        expect(ready._meta).toMatchObject(AIR);
        const { sessionId } = await editor.agent.request(acp.methods.agent.session.new, { cwd: root, mcpServers: [] });

        const first = await editor.agent.request(acp.methods.agent.session.prompt, {
          sessionId,
          prompt: [{ type: "text", text: "Change things." }],
          _meta: asks("turn-1"),
        });
        expect(first.stopReason).toBe("end_turn");
        const [summary, ...more] = summaries(editor.updates);
        expect(more).toHaveLength(0);
        expect(summary?.kind).toBe("edit");
        expect(summary?.status).toBe("completed");
        const diffs = (summary?.content ?? []).filter((c) => c.type === "diff");
        expect(diffs).toEqual([
          { type: "diff", path: join(root, "made.txt"), oldText: null, newText: "made\n" },
          { type: "diff", path: join(root, "notes.txt"), oldText: "old line\n", newText: "new line\n" },
        ]);
        const text = textOf(summary ?? {});
        expect(text).toContain("`run.log` gitignored, so not tracked");
        expect(text).toContain("`build/new.o` gitignored, so not tracked");
        expect(text).toContain("- `build/` a gitignored folder whose entries changed");
        expect(text).toContain("This list may miss changes: entries of gitignored folders changed \\(build/\\)");
        const [report] = reports(editor.updates);
        expect(report).toEqual({
          version: 1,
          requestId: "turn-1",
          status: "reported",
          paths: expect.arrayContaining([
            join(root, "made.txt"),
            join(root, "notes.txt"),
            join(root, "run.log"),
            join(root, "build", "new.o"),
          ]),
          declaredComplete: false,
          truncated: false,
        } as unknown as Report);
        expect(report?.paths).toHaveLength(4);

        // A new gitignored file at the top, nothing else: named, and the list is complete.
        editor.updates.length = 0;
        await editor.agent.request(acp.methods.agent.session.prompt, {
          sessionId,
          prompt: [{ type: "text", text: "Once more." }],
          _meta: asks("turn-2"),
        });
        expect(reports(editor.updates)).toEqual([
          {
            version: 1,
            requestId: "turn-2",
            status: "reported",
            paths: [join(root, "second.log")],
            declaredComplete: true,
            truncated: false,
          } as unknown as Report,
        ]);
        expect(textOf(summaries(editor.updates)[0] ?? {})).toContain("This list is complete");

        // Nothing changed: no summary; the report (asked for) is empty and complete. Not asked: none.
        editor.updates.length = 0;
        await editor.agent.request(acp.methods.agent.session.prompt, {
          sessionId,
          prompt: [{ type: "text", text: "Anything?" }],
          _meta: asks("turn-3"),
        });
        expect(summaries(editor.updates)).toHaveLength(0);
        expect(reports(editor.updates)).toMatchObject([{ requestId: "turn-3", paths: [], declaredComplete: true }]);
        editor.updates.length = 0;
        await editor.agent.request(acp.methods.agent.session.prompt, {
          sessionId,
          prompt: [{ type: "text", text: "/diff" }],
        });
        expect(reports(editor.updates)).toHaveLength(0);
        // A command is no turn: asked, the report is unavailable; asked in a form Garuda does not know, none.
        await editor.agent.request(acp.methods.agent.session.prompt, {
          sessionId,
          prompt: [{ type: "text", text: "/diff" }],
          _meta: asks("turn-4"),
        });
        await editor.agent.request(acp.methods.agent.session.prompt, {
          sessionId,
          prompt: [{ type: "text", text: "/diff" }],
          _meta: { jetbrains: { air: { agentFileChangeReportRequest: { version: 2, requestId: "turn-5" } } } },
        });
        expect(reports(editor.updates)).toEqual([
          { version: 1, requestId: "turn-4", status: "unavailable", reason: "notReported" } as unknown as Report,
        ]);
      } finally {
        editor.proc.stdin.end();
        await editor.proc.exited;
        editor.connection.close();
      }
    }, 90_000);
  },
  "bwrap",
);
