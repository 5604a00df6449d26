// End to end: with disallowedCommands in ~/.garuda/policy.json, the bash tool of a real session
// (the real engine and sandbox) refuses a spelling of rm the words cannot tell, the model reads
// why, and the file is still there; an ordinary command with a variable runs.
import { expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fake } from "../../src/model/fake.ts";
import { answering, place, results, session } from "../support/extensionHarness.ts";

test("a computed program name is refused through the bash tool, with the reason; the " +
  "file stays; echo $HOME runs", async () => {
  using where = place();
  writeFileSync(where.paths.policy, JSON.stringify({ disallowedCommands: ["rm"] }));
  const victim = join(where.root, "victim");
  writeFileSync(victim, "keep me");
  const approver = answering();
  await using s = await session(
    where,
    [
      fake.toolCall("bash", { command: "x=rm; $x victim" }),
      fake.toolCall("bash", { command: "echo home=$HOME" }),
      fake.text("done"),
    ],
    approver,
  );
  const { events } = await s.prompt("clean up");
  const [refused, ran] = results(events);
  expect(refused?.status).toBe("denied");
  expect(refused?.output).toContain(
    "forbids some commands (rm), and Garuda cannot tell which program this command " +
      "runs: the program name `$x` is computed when it runs",
  );
  expect(existsSync(victim)).toBe(true);
  expect(ran?.status).toBe("completed");
  expect(ran?.output).toContain("home=");
  expect(approver.asked).toHaveLength(0);
}, 60_000);
