// A mode switch in the terminal applies to what runs: a process_manager job started in build mode
// writes the project every 100 ms; after Shift-Tab to plan mode no more writes land, the screen
// names the job at once, and the model hears it with the next prompt. The real chat from source
// in a pseudo-terminal, the real sandbox, the mock Anthropic server.
import { describe, expect, test } from "bun:test";
import { statSync } from "node:fs";
import { join } from "node:path";
import { startMockAnthropic } from "../support/mockAnthropic.ts";
import { eventually } from "../support/sandboxSupport.ts";
import { ChatPty, KEYS, chatEnv, workspace } from "../support/chatHarness.ts";

const TICKS = "while :; do date +%s%N >> ticks.txt; sleep 0.1; done";

const size = (path: string) => {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
};

describe.skipIf(process.platform !== "linux")("the chat's switch to plan mode", () => {
  test("stops the build-mode job that writes the project, names it on screen and to the model", async () => {
    await using mock = startMockAnthropic({
      script: [
        {
          steps: [
            {
              type: "tool_use",
              name: "process_manager",
              id: "toolu_ticks",
              input: { action: "start", command: TICKS },
            },
          ],
        },
        { steps: [{ type: "text", text: "It ticks." }] },
        { steps: [{ type: "text", text: "Here is the plan." }] },
      ],
    });
    using ws = workspace();
    const chat = new ChatPty([], { cwd: ws.root, env: chatEnv(mock, ws.home) });
    await chat.prompt();
    chat.type("start the ticker");
    await chat.waitFor("It ticks.");
    await chat.prompt();
    const ticks = join(ws.root, "ticks.txt");
    await eventually(() => size(ticks) > 0, 5_000);

    chat.send(KEYS.shiftTab);
    await chat.waitFor("Mode: plan");
    const shown = await chat.waitFor("could write the project.");
    expect(shown.replace(/\s+/g, " ")).toContain(
      `Garuda: Plan mode stopped the background process p1 ($ ${TICKS}): it was ` +
        `started in build mode and could write the project.`,
    );
    const stoppedAt = size(ticks);
    await Bun.sleep(700);
    expect(size(ticks)).toBe(stoppedAt);

    await chat.waitFor(/plan › $/m);
    chat.type("now plan");
    await chat.waitFor("Here is the plan.");
    const sent = JSON.stringify(mock.requests[2]?.body?.messages?.at(-1));
    expect(sent).toContain("Plan mode stopped the background process p1");
    chat.type("/exit");
    expect(await chat.exit()).toBe(0);
  }, 60_000);
});
