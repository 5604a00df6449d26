// Issue 20.7: a denial as the user reads it, and `garuda run --plan`'s report. The model's
// instruction ("Put this step in your plan instead …", "Do not retry it …") stays in the tool
// result; the user's screen gets a sentence about what happened. A write refused by --plan is
// reported as plan mode's, with no --allow that could not work; a call that only needed a yes
// still gets the rule that would allow it (negative control).
import { describe, expect, test } from "bun:test";
import { startMockAnthropic } from "../support/mockAnthropic.ts";
import { chatEnv, lastToolResult, runPipedIn, workspace } from "../support/chatHarness.ts";

const WRITE = {
  steps: [
    { type: "tool_use" as const, name: "write_file", id: "toolu_write", input: { path: "a.txt", content: "x\n" } },
  ],
};
const DONE = { steps: [{ type: "text" as const, text: "Done." }] };

describe("denials", () => {
  test("garuda run --plan: plan mode's refusal, no --allow; without --plan the " +
    "approval report and its rule", async () => {
    await using mock = startMockAnthropic({ script: [WRITE, DONE, WRITE, DONE] });
    using ws = workspace();
    const env = chatEnv(mock, ws.home);
    const plan = await runPipedIn(["run", "--plan", "write a.txt"], { cwd: ws.root, env });
    expect(plan.stderr).toContain(
      "✗ Refused: plan mode is on, so nothing in the project changes until you switch to build mode.",
    );
    expect(plan.stderr).toContain(
      "garuda run: refused by plan mode (--plan), where nothing in the project " +
        "changes:\n  Write a.txt\nRun the task without --plan to let it make these " +
        "changes.",
    );
    expect(plan.stderr).not.toContain("no one can approve");
    expect(plan.stderr).not.toContain("--allow");
    expect(plan.stderr).not.toContain("Put this step in your plan");
    expect(lastToolResult(mock, 1)).toContain("Put this step in your plan instead");

    const build = await runPipedIn(["run", "write a.txt"], { cwd: ws.root, env });
    expect(build.stderr).toContain("✗ Not run: it needs an approval, and no one can answer in this run.");
    expect(build.stderr).toContain("garuda run: denied (no one can approve during `garuda run`):");
    expect(build.stderr).toContain("--allow 'write_file(");
    expect(lastToolResult(mock, 3)).toContain("no one can answer in this run. Leave it out");
  }, 60_000);

  test("the chat: n shows 'Denied by you.'; the model reads not to retry", async () => {
    await using mock = startMockAnthropic({ script: [WRITE, DONE] });
    using ws = workspace();
    const chat = await runPipedIn([], { cwd: ws.root, env: chatEnv(mock, ws.home), stdin: "write a.txt\nn\n" });
    expect(chat.stdout).toContain("✗ Write a.txt: Denied by you.");
    expect(chat.stdout).not.toContain("Do not retry it");
    expect(lastToolResult(mock, 1)).toContain("The user denied this. Do not retry it");
  }, 60_000);
});
