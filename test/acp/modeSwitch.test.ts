// A mode switch applies to what runs (ACP, the production wiring with the real sandbox): a
// process_manager job that build mode started writes the project every 100 ms; after
// session/set_mode to plan no write lands, the process is gone by pid, the editor gets a
// "Garuda:" line naming the job right away (between prompts), and the model hears it at the
// next prompt. The plan mode promise is "commands cannot write the project".
import { describe, expect, test } from "bun:test";
import { statSync } from "node:fs";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { FakeModelClient, fake } from "../../src/model/fake.ts";
import { descendants } from "../../src/sandbox/processTree.ts";
import { eventually } from "../support/sandboxSupport.ts";
import { messageText, startHarness } from "../support/acpHarness.ts";
import { alive, cmdline } from "../support/processes.ts";

const TICKS = "while :; do date +%s%N >> ticks.txt; sleep 0.1; done";

/** Live processes below this test process whose command line mentions ticks.txt. */
function tickers(): number[] {
  return descendants(process.pid).filter((pid) => alive(pid) && (cmdline(pid) ?? "").includes("ticks.txt"));
}

const size = (path: string) => {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
};

function userText(model: FakeModelClient, index: number): string {
  const user = model.requests[index]?.messages.findLast((m) => m.role === "user");
  return (user?.content ?? []).map((block) => (block.type === "text" ? block.text : "")).join("\n");
}

describe.skipIf(process.platform !== "linux")("session/set_mode to plan", () => {
  test("stops the build-mode job that writes the project: no write lands after, and " +
    "the editor and the model are told which", async () => {
    const model = new FakeModelClient([
      fake.toolCall("process_manager", { action: "start", command: TICKS }, { id: "toolu_ticks" }),
      fake.text("It ticks."),
      fake.text("Here is the plan."),
    ]);
    await using h = startHarness({ models: [model] });
    await h.initialize();
    const { sessionId } = await h.newSession();
    expect((await h.prompt(sessionId, "start the ticker")).stopReason).toBe("end_turn");
    const ticks = join(h.root, "ticks.txt");
    await eventually(() => size(ticks) > 0, 5_000);
    const growing = size(ticks);
    await eventually(() => size(ticks) > growing, 2_000);
    const pids = tickers();
    expect(pids.length).toBeGreaterThan(0);

    const seen = h.updatesOf(sessionId).length;
    expect(await h.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: "plan" })).toEqual({});
    const stoppedAt = size(ticks);
    expect(tickers()).toEqual([]);
    await Bun.sleep(700);
    expect(size(ticks)).toBe(stoppedAt);

    const said =
      `Plan mode stopped the background process p1 ($ ${TICKS}): it was started in ` +
      `build mode and could write the project.`;
    await h.waitFor(
      (u) =>
        u.sessionUpdate === "agent_message_chunk" &&
        u.content.type === "text" &&
        u.content.text.includes("Plan mode stopped"),
    );
    expect(messageText(h.updatesOf(sessionId).slice(seen))).toContain(`Garuda: ${said}`);

    expect((await h.prompt(sessionId, "now plan")).stopReason).toBe("end_turn");
    expect(userText(model, 2)).toContain(said);
    expect(userText(model, 2)).toContain("Plan mode is on");
  }, 30_000);
});
