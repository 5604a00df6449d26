// The plan on screen (issue 34.4), in a real pseudo-terminal: the todo tool's list is a checklist
// in the live region above the spinner while the turn runs (the current step marked), follows
// each change, and is printed whole, once, under the answer when the turn ends. A long plan is cut
// around its current step while live.
import { describe, expect, test } from "bun:test";
import { startMockAnthropic } from "../support/mockAnthropic.ts";
import { ChatPty, chatEnv, KEYS, workspace } from "../support/chatHarness.ts";
import { renderScreen } from "../support/screenModel.ts";
import { planRows } from "../../src/cli/chat/planView.ts";
import { NO_STYLE } from "../../src/cli/chat/style.ts";

const todo = (id: string, statuses: readonly ("pending" | "in_progress" | "completed")[]) => ({
  type: "tool_use" as const,
  name: "todo",
  id,
  input: {
    items: ["Read the code", "Write the fix", "Run the tests"].map((content, i) => ({
      content,
      status: statuses[i],
    })),
  },
});

describe("the plan in the terminal chat", () => {
  test("stays above the spinner while the turn runs, follows each change, and is printed at the end", async () => {
    await using mock = startMockAnthropic({
      script: [
        { steps: [todo("toolu_plan1", ["completed", "in_progress", "pending"])] },
        // Slow: the plan is on screen while the model works.
        {
          delayMs: 250,
          steps: [
            { type: "text", text: "Fixing it now, step by step.", fragments: 6 },
            todo("toolu_plan2", ["completed", "completed", "in_progress"]),
          ],
        },
        { delayMs: 250, steps: [{ type: "text", text: "All three steps are done.", fragments: 6 }] },
      ],
    });
    using ws = workspace();
    const cols = 80;
    const rows = 30;
    const chat = new ChatPty([], { cwd: ws.root, env: chatEnv(mock, ws.home), cols, rows });
    await chat.prompt();
    chat.type("Fix the bug");
    await chat.waitFor("● Update the plan");
    // Live, above the spinner: the checklist with the current step marked.
    const live = await chat.waitFor(/Working… \d+s · Ctrl-C to stop/);
    expect(live).toContain("Plan (1 of 3 done)");
    expect(live).toContain("☑ Read the code");
    expect(live).toContain("▶ Write the fix");
    expect(live).toContain("☐ Run the tests");
    expect(chat.raw).toContain("\x1b[1m\x1b[36m▶ Write the fix");
    // While the answer streams, the checklist stays under it.
    await chat.waitFor("Fixing it now");
    const screenNow = renderScreen(chat.raw, cols, rows).slice(-rows);
    const answerRow = screenNow.findIndex((line) => line.includes("Fixing it"));
    const planRow = screenNow.findIndex((line) => line.includes("Plan (1 of 3 done)"));
    expect(answerRow).toBeGreaterThanOrEqual(0);
    expect(planRow).toBeGreaterThan(answerRow);
    // The second update moves the mark.
    await chat.waitFor("Plan (2 of 3 done)");
    await chat.waitFor("All three steps are done.");
    await chat.prompt();
    const screen = renderScreen(chat.raw, cols, rows);
    const text = screen.join("\n");
    // At the end: the plan as the turn left it, once, under the answer; no live copy left behind.
    expect(text).toMatch(
      new RegExp(
        String.raw`All three steps are done\.\n\nPlan \(2 of 3 done\)\n` +
          String.raw` {2}☑ Read the code\n {2}☑ Write the fix\n {2}▶ Run the tests\n`,
      ),
    );
    expect(screen.filter((line) => line.startsWith("Plan ("))).toEqual(["Plan (2 of 3 done)"]);
    chat.send(KEYS.ctrlD);
    expect(await chat.exit()).toBe(0);
  }, 60_000);
});

test("a plan longer than the live rows shows the steps around the current one and says how many are left out", () => {
  const items = Array.from({ length: 20 }, (_, i) => ({
    content: `Step ${i + 1}`,
    status: i < 9 ? ("completed" as const) : i === 9 ? ("in_progress" as const) : ("pending" as const),
  }));
  expect(planRows(items, NO_STYLE, 4)).toEqual([
    "Plan (9 of 20 done)",
    "  … 8 earlier",
    "  ☑ Step 9",
    "  ▶ Step 10",
    "  ☐ Step 11",
    "  ☐ Step 12",
    "  … 8 more",
  ]);
  expect(planRows(items, NO_STYLE)).toHaveLength(21);
  expect(planRows([], NO_STYLE)).toEqual([]);
});
