// A project's hooks through prepareRuntime, with real files, the real trust store and the real
// sandbox: the terminal asks about them at start (projectTrust, kind "hooks"), a yes is pinned and
// a change asks again; a broken file is a notice, never the end of the session; in plan mode a
// hook runs in the build sandbox (it is the user's own automation).
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FakeModelClient, fake } from "../../src/model/fake.ts";
import type { Mode } from "../../src/core-types/mode.ts";
import type { AgentEvent } from "../../src/core-types/events.ts";
import type { ProjectTrustQuestion } from "../../src/compose/prepare.ts";
import { notices, type Place, place, prepareIn, results } from "../support/extensionHarness.ts";

/** A postToolUse hook on read_file whose stderr (exit 2) is added to the result the model reads. */
const FEEDBACK_HOOKS = JSON.stringify({
  hooks: { postToolUse: [{ tools: ["read_file"], command: "echo PROJECT-HOOK-RAN >&2; exit 2" }] },
});

async function readTurn(where: Place, answers: boolean[], mode: Mode = "build") {
  const asked: ProjectTrustQuestion[] = [];
  const model = new FakeModelClient([fake.toolCall("read_file", { path: "a.txt" }), fake.text("done")]);
  const runtime = await prepareIn(where, model, {
    mode,
    projectTrust: async (question) => {
      asked.push(question);
      return answers.shift() ?? false;
    },
  });
  try {
    const events: AgentEvent[] = [];
    await runtime.runTurn("read a.txt", new AbortController().signal, (event) => events.push(event));
    return { asked, events, output: results(events)[0]?.output ?? "" };
  } finally {
    await runtime.close();
  }
}

describe("project hooks at the start of a session", () => {
  test("asked once: no runs nothing and pins nothing; yes is pinned and runs; a change asks again", async () => {
    using where = place();
    where.project("a.txt", "alpha\n");
    const file = where.project(".garuda/hooks.json", FEEDBACK_HOOKS);

    const no = await readTurn(where, [false]);
    expect(no.asked).toHaveLength(1);
    expect(no.asked[0]).toMatchObject({ kind: "hooks", file });
    expect(no.asked[0]?.text).toContain("postToolUse on read_file");
    expect(no.asked[0]?.text).toContain("echo PROJECT-HOOK-RAN >&2; exit 2");
    expect(no.output).not.toContain("PROJECT-HOOK-RAN");
    // The user just said no: no notice telling them to go and answer yes.
    expect(notices(no.events).join("\n")).not.toContain("answer yes");
    expect(existsSync(where.paths.trust)).toBe(false);

    const yes = await readTurn(where, [true]);
    expect(yes.asked).toHaveLength(1);
    expect(yes.output).toContain("PROJECT-HOOK-RAN");
    expect(Object.keys(JSON.parse(readFileSync(where.paths.trust, "utf8")).hooks)).toEqual([where.root]);

    const pinned = await readTurn(where, []);
    expect(pinned.asked).toHaveLength(0);
    expect(pinned.output).toContain("PROJECT-HOOK-RAN");

    writeFileSync(file, FEEDBACK_HOOKS.replace("PROJECT-HOOK-RAN", "CHANGED-HOOK-RAN"));
    const changed = await readTurn(where, [false]);
    expect(changed.asked).toHaveLength(1);
    expect(changed.asked[0]?.text).toContain("CHANGED-HOOK-RAN");
    expect(changed.output).not.toContain("HOOK-RAN");
    expect(notices(changed.events).join("\n")).not.toContain("answer yes");
  });

  test("a broken project hooks.json is a notice; the session starts and nothing is asked", async () => {
    using where = place();
    where.project("a.txt", "alpha\n");
    const file = where.project(
      ".garuda/hooks.json",
      '{"hooks": {"preToolUse": [{"command": "x", "matcher": "Bash"}]}}',
    );
    const turn = await readTurn(where, [true]);
    expect(turn.asked).toHaveLength(0);
    expect(turn.output).toContain("alpha");
    expect(notices(turn.events).join("\n")).toContain(`${file}: unknown key "hooks.preToolUse.0.matcher"`);
    expect(notices(turn.events).join("\n")).toContain("The project's hooks will not run until the file is fixed.");
  });

  test(
    "in plan mode a hook still runs in the build sandbox: a hook that keeps a log " +
      "in the project does not block every call",
    async () => {
      using where = place();
      where.project("a.txt", "alpha\n");
      where.user(
        ".garuda/hooks.json",
        JSON.stringify({ hooks: { preToolUse: [{ tools: ["read_file"], command: "echo hooked >> hook-wrote.txt" }] } }),
      );
      const plan = await readTurn(where, [], "plan");
      expect(plan.output).toContain("alpha");
      expect(readFileSync(join(where.root, "hook-wrote.txt"), "utf8")).toBe("hooked\n");
    },
  );
});
