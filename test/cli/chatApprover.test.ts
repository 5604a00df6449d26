// The terminal's Approver on a scripted input (the keys a user presses) and a recording screen,
// and the core hook it needs for hunk-by-hunk approval (U0): Approver.askChange → the engine's
// Decision.partial → ToolContext.partial, so write_file and edit_file write only the accepted
// hunks and the model reads which were rejected.
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { TerminalApprover } from "../../src/cli/chat/approver.ts";
import type { ChatInput } from "../../src/cli/chat/input.ts";
import { Screen } from "../../src/cli/chat/screen.ts";
import { NO_STYLE } from "../../src/cli/chat/style.ts";
import { HIDDEN_WARNING } from "../../src/cli/approver.ts";
import { stripAnsi } from "../../src/cli/chat/style.ts";
import { unifiedDiff } from "../../src/tools/diff.ts";
import { garudaPaths } from "../../src/config/paths.ts";
import { ProviderKeys } from "../../src/config/providerKeys.ts";
import { FakeModelClient, fake } from "../../src/model/fake.ts";
import { CHOICE_LABELS } from "../../src/permission/approvals.ts";
import type { ApprovalRequest, Approver, PartialApproval } from "../../src/permission/types.ts";
import type { AgentEvent } from "../../src/core-types/events.ts";
import { prepareRuntime } from "../../src/compose/prepare.ts";
import { BRIDGE, setUpHome, testProbe } from "../support/acpHarness.ts";
import { tempDir } from "../support/tempDir.ts";

/** Answers from a list, as a terminal would give them key by key. */
function scripted(answers: string[], interactive = true): ChatInput & { asked: number } {
  const input = {
    interactive,
    asked: 0,
    readPrompt: async () => ({ kind: "eof" as const }),
    readLine: async () => undefined,
    onInterrupt: () => {},
    close: () => {},
    readAnswer: async (signal: AbortSignal) => {
      input.asked++;
      if (signal.aborted) return undefined;
      return answers.shift();
    },
  };
  return input;
}

function approverWith(answers: string[]) {
  const out: string[] = [];
  const screen = new Screen({ write: (text: string) => out.push(text) }, false, false);
  const input = scripted(answers);
  return { approver: new TerminalApprover({ input, screen, style: NO_STYLE }), input, text: () => out.join("") };
}

const editRequest = (oldText: string, newText: string, extra: Partial<ApprovalRequest> = {}): ApprovalRequest => ({
  callId: "toolu_1",
  tool: "edit_file",
  title: "Edit f.txt",
  preview: "--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-old\n+new",
  change: { path: "/root/f.txt", oldText, newText },
  choices: ["once", "session", "deny"],
  labels: { ...CHOICE_LABELS },
  hidden: false,
  sessionRules: ["edit_file(./f.txt)"],
  ...extra,
});

const never = new AbortController().signal;

describe("the terminal approver", () => {
  test(
    "y, s and n are once, session and deny; the question shows the header, the diff " + "and the session scope",
    async () => {
      for (const [key, choice] of [
        ["y", "once"],
        ["s", "session"],
        ["n", "deny"],
        ["escape", "deny"],
      ] as const) {
        const { approver, text } = approverWith([key]);
        expect(await approver.ask(editRequest("old\n", "new\n"), never)).toBe(choice);
        expect(text()).toContain("? Allow Edit f.txt?");
        expect(text()).toContain("  -old\n  +new\n");
        expect(text()).toContain("“Allow for this session” allows: edit_file(./f.txt)");
        expect(text()).toContain("[y] Allow once   [s] Allow for this session   [n] Deny");
      }
    },
  );

  test("on a narrow terminal the menu breaks between choices, never between a key and what it does", async () => {
    const out: string[] = [];
    const screen = new Screen({ write: (text: string) => out.push(text), columns: 40, rows: 40 }, true, false);
    const approver = new TerminalApprover({ input: scripted(["n"]), screen, style: NO_STYLE });
    expect(await approver.ask(editRequest("old\n", "new\n"), never)).toBe("deny");
    const rows = stripAnsi(out.join("")).split("\n");
    const menu = rows.findIndex((row) => row.startsWith("  [y]"));
    expect(rows.slice(menu, menu + 3)).toEqual([
      "  [y] Allow once",
      "  [s] Allow for this session   [n] Deny",
      "  → Deny",
    ]);
  });

  test("a consent's lasting yes has its own key: r remembers, s and y are for this session", async () => {
    const consent = (): ApprovalRequest => ({
      tool: "command.deploy",
      title: "Project command /deploy",
      preview: "npm run deploy",
      question: "Use this project's command?",
      choices: ["once", "session", "deny"],
      labels: { once: "Yes, for this session", session: "Yes, and remember", deny: "No" },
      hidden: false,
      remembers: true,
    });
    for (const [key, choice] of [
      ["y", "once"],
      ["s", "once"],
      ["r", "session"],
      ["n", "deny"],
    ] as const) {
      const { approver, text } = approverWith([key]);
      expect(await approver.ask(consent(), never)).toBe(choice);
      expect(text()).toContain("[y] Yes, for this session   [r] Yes, and remember   [n] No");
      expect(text()).not.toContain("[s]");
    }
  });

  test("a choice the question does not offer is asked again", async () => {
    const { approver, input, text } = approverWith(["s", "x", "n"]);
    const request = editRequest("old\n", "new\n", { choices: ["once", "deny"], sessionRules: undefined });
    expect(await approver.ask(request, never)).toBe("deny");
    expect(input.asked).toBe(3);
    expect(text()).not.toContain("[s]");
  });

  test("hidden characters are shown and the warning comes first", async () => {
    const { approver, text } = approverWith(["n"]);
    const request: ApprovalRequest = {
      tool: "bash",
      title: "$ rm -rf build\u202E",
      preview: "rm -rf build\u202E # safe",
      choices: ["once", "deny"],
      labels: { ...CHOICE_LABELS },
      hidden: true,
    };
    await approver.ask(request, never);
    const shown = text();
    expect(shown).toContain("⟨U+202E⟩");
    expect(shown).not.toContain("\u202E");
    expect(shown.indexOf(HIDDEN_WARNING)).toBeLessThan(shown.indexOf("rm -rf build⟨U+202E⟩ # safe"));
  });

  test("a stopped turn denies at once", async () => {
    const { approver } = approverWith([]);
    const controller = new AbortController();
    controller.abort();
    expect(await approver.ask(editRequest("old\n", "new\n"), controller.signal)).toBe("deny");
  });

  test("hunk by hunk: some kept is a PartialApproval; all kept is once; none is deny", async () => {
    const old = "a\nb\nc\nd\ne\nf\ng\nh\n";
    const next = "A\nb\nc\nd\ne\nf\ng\nH\n";
    {
      const { approver, text } = approverWith(["h", "n", "y"]);
      const answer = (await approver.askChange(editRequest(old, next), never)) as PartialApproval;
      expect(answer.change).toEqual({ path: "/root/f.txt", oldText: old, newText: "a\nb\nc\nd\ne\nf\ng\nH\n" });
      expect(answer.note).toContain("hunk 1:\n@@ -1,1 +1,1 @@\n-a\n+A");
      expect(text()).toContain("Hunk 1 of 2:");
      expect(text()).toContain("[h] Choose hunks (2)");
    }
    {
      const { approver } = approverWith(["h", "a"]);
      expect(await approver.askChange(editRequest(old, next), never)).toBe("once");
    }
    {
      const { approver } = approverWith(["h", "n", "n"]);
      expect(await approver.askChange(editRequest(old, next), never)).toBe("deny");
    }
    {
      // One hunk: nothing to choose between, so no [h].
      const { approver, text } = approverWith(["h", "y"]);
      expect(await approver.askChange(editRequest("a\n", "b\n"), never)).toBe("once");
      expect(text()).not.toContain("[h]");
    }
  });

  test("a stop while the question waits says so at once, before anything the stop makes others write", async () => {
    const out: string[] = [];
    const screen = new Screen({ write: (text: string) => out.push(text) }, false, false);
    const pending: ChatInput = {
      ...scripted([]),
      readAnswer: (signal) => new Promise((resolve) => signal.addEventListener("abort", () => resolve(undefined))),
    };
    const approver = new TerminalApprover({ input: pending, screen, style: NO_STYLE });
    const controller = new AbortController();
    const asked = approver.ask(editRequest("old\n", "new\n"), controller.signal);
    await Bun.sleep(0);
    controller.abort();
    // Said within the abort itself: the call's "✗ Cancelled." comes after it.
    expect(out.join("")).toEndWith("  → Denied (stopped).\n");
    expect(await asked).toBe("deny");
    expect(out.join("").match(/Denied/g)).toHaveLength(1);
  });

  test(
    "a big new file: the preview fits the terminal under its question, counts what " + "it leaves out, and v shows all",
    async () => {
      const rows = Array.from({ length: 5000 }, (_, i) => `row ${i}`).join("\n");
      const out: string[] = [];
      const screen = new Screen({ write: (text: string) => out.push(text), columns: 80, rows: 40 }, true, false);
      const input = scripted(["v", "y"]);
      const approver = new TerminalApprover({ input, screen, style: NO_STYLE });
      const request = editRequest("", rows, {
        tool: "write_file",
        title: "Write big.txt",
        preview: unifiedDiff("big.txt", null, rows).text,
        change: { path: "/root/big.txt", oldText: null, newText: rows },
      });
      expect(await approver.ask(request, never)).toBe("once");
      const shown = stripAnsi(out.join("")).split("\n");
      const menu = shown.findIndex((line) => line.includes("[n] Deny"));
      // The call's line, the question and its choices fit in 40 rows, with the line the cursor waits on.
      expect(menu + 1).toBeLessThanOrEqual(38);
      expect(shown[0]).toBe("? Allow Write big.txt?");
      const note = shown.find((line) => line.includes("more lines not shown")) as string;
      const previewLines = shown.slice(1, shown.indexOf(note)).length;
      expect(note).toBe(
        `  … ${(5003 - previewLines).toLocaleString("en-US")} more lines not shown ([v] shows all of it)`,
      );
      // v: every line, then the question and its choices again.
      expect(shown).toContain("  +row 4999");
      const again = shown.lastIndexOf("? Allow Write big.txt?");
      expect(again).toBeGreaterThan(shown.indexOf("  +row 4999"));
      expect(shown[again + 1]).toContain("[n] Deny");
    },
  );

  test("a new file of one long line: its start is shown, cut to the width", async () => {
    const line = "x".repeat(20_000);
    const { approver, text } = approverWith(["n"]);
    const request = editRequest("", line, {
      preview: unifiedDiff("one.txt", null, line).text,
      change: { path: "/root/one.txt", oldText: null, newText: line },
    });
    await approver.ask(request, never);
    expect(text()).toContain("  @@ -0,0 +1,1 @@\n  +xxxxxxxx");
    expect(text()).toContain("(long lines are cut to fit; [v] shows them whole)");
    expect(text()).not.toContain("more diff lines not shown");
  });

  test("questions are asked one at a time", async () => {
    const { approver, text } = approverWith(["y", "n"]);
    const both = await Promise.all([
      approver.ask(editRequest("1\n", "2\n", { title: "Edit one" }), never),
      approver.ask(editRequest("1\n", "2\n", { title: "Edit two" }), never),
    ]);
    expect(both).toEqual(["once", "deny"]);
    const shown = text();
    expect(shown.indexOf("Allow Edit two?")).toBeGreaterThan(shown.indexOf("→ Allow once"));
  });

  describe("deny and say why (askCall, the engine's questions)", () => {
    const withWords = (answers: string[], words: string | undefined) => {
      const made = approverWith(answers);
      const input = made.input as ChatInput & { read?: string };
      input.readText = async (prompt: string) => {
        input.read = prompt;
        return words;
      };
      return made;
    };

    test("t reads a line and the answer carries it; no words is a plain deny", async () => {
      const said = withWords(["t"], "  use the helper instead ");
      expect(await said.approver.askCall(editRequest("old\n", "new\n"), never)).toEqual({
        deny: "use the helper instead",
      });
      expect(said.text()).toContain("[t] Deny and say why");
      expect(said.text()).toContain("→ Deny, and the model reads why");
      const silent = withWords(["t"], "");
      expect(await silent.approver.askCall(editRequest("old\n", "new\n"), never)).toBe("deny");
    });

    test(
      "ask() (a consent, the project's trust) neither offers t nor takes it: its " +
        "callers read any other answer as yes",
      async () => {
        const made = withWords(["t", "n"], "words");
        expect(await made.approver.ask(editRequest("old\n", "new\n"), never)).toBe("deny");
        expect(made.text()).not.toContain("[t]");
        expect(made.input.asked).toBe(2);
      },
    );
  });
});

describe("the core hook for hunks (U0)", () => {
  /** An approver that keeps only the first line's change of whatever file change it is asked about. */
  function firstHunkOnly(): Approver & { asked: ApprovalRequest[] } {
    const asked: ApprovalRequest[] = [];
    return {
      asked,
      ask: async () => "deny",
      askChange: async (request) => {
        asked.push(request);
        const change = request.change as NonNullable<ApprovalRequest["change"]>;
        const oldLines = (change.oldText ?? "").split("\n");
        const newLines = change.newText.split("\n");
        const kept = [newLines[0], ...oldLines.slice(1)].join("\n");
        return {
          change: { ...change, newText: kept },
          note: "The user kept only the first line's change.",
          hunks: { kept: [1], rejected: [2] },
        };
      },
    };
  }

  async function runWith(approver: Approver, model: FakeModelClient, root: string, home: string) {
    setUpHome(home);
    const runtime = await prepareRuntime({
      root,
      paths: garudaPaths(home),
      env: { PATH: process.env.PATH, HOME: home },
      keys: new ProviderKeys(),
      managedPolicy: join(home, "none.json"),
      approver,
      selfCommand: BRIDGE,
      probe: await testProbe(),
      openModel: async () => model,
    });
    const events: AgentEvent[] = [];
    try {
      expect(await runtime.runTurn("change it", new AbortController().signal, (event) => events.push(event))).toBe(
        "done",
      );
    } finally {
      await runtime.close();
    }
    return events;
  }

  test("write_file writes only the accepted part and the model reads the note", async () => {
    using home = tempDir();
    using root = tempDir();
    const file = join(root.path, "f.txt");
    writeFileSync(file, "one\ntwo\n");
    const model = new FakeModelClient([
      fake.toolCall("read_file", { path: "f.txt" }, { id: "toolu_read" }),
      fake.toolCall("write_file", { path: "f.txt", content: "ONE\nTWO\n" }, { id: "toolu_write" }),
      fake.text("ok"),
    ]);
    const approver = firstHunkOnly();
    const events = await runWith(approver, model, root.path, home.path);
    expect(approver.asked.map((request) => request.callId)).toEqual(["toolu_write"]);
    expect(readFileSync(file, "utf8")).toBe("ONE\ntwo\n");
    const result = events.find((event) => event.type === "tool_result" && event.callId === "toolu_write");
    expect(result).toMatchObject({ status: "completed" });
    expect((result as { output: string }).output).toContain("The user kept only the first line's change.");
  });

  test("edit_file writes only the accepted part", async () => {
    using home = tempDir();
    using root = tempDir();
    const file = join(root.path, "f.txt");
    writeFileSync(file, "one\ntwo\n");
    const model = new FakeModelClient([
      fake.toolCall("read_file", { path: "f.txt" }, { id: "toolu_read" }),
      fake.toolCall(
        "edit_file",
        { path: "f.txt", old_string: "one\ntwo", new_string: "ONE\nTWO" },
        { id: "toolu_edit" },
      ),
      fake.text("ok"),
    ]);
    const events = await runWith(firstHunkOnly(), model, root.path, home.path);
    expect(readFileSync(file, "utf8")).toBe("ONE\ntwo\n");
    const result = events.find((event) => event.type === "tool_result" && event.callId === "toolu_edit") as {
      output: string;
    };
    expect(result.output).toContain("2\ttwo");
    expect(result.output).toContain("The user kept only the first line's change.");
  });

  test("a partial answer for another file is no approval", async () => {
    using home = tempDir();
    using root = tempDir();
    const file = join(root.path, "f.txt");
    writeFileSync(file, "one\n");
    const model = new FakeModelClient([
      fake.toolCall("read_file", { path: "f.txt" }, { id: "toolu_read" }),
      fake.toolCall("write_file", { path: "f.txt", content: "ONE\n" }, { id: "toolu_write" }),
      fake.text("ok"),
    ]);
    const elsewhere: Approver = {
      ask: async () => "once",
      askChange: async (_request) => ({
        change: { path: "/elsewhere", oldText: null, newText: "x" },
        note: "",
        hunks: { kept: [1], rejected: [2] },
      }),
    };
    const events = await runWith(elsewhere, model, root.path, home.path);
    expect(readFileSync(file, "utf8")).toBe("one\n");
    expect(events.find((event) => event.type === "tool_result" && event.callId === "toolu_write")).toMatchObject({
      status: "denied",
    });
  });
});
