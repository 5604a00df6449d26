// A project's settings as a session applies them (prepareRuntime, the real sandbox, engine and
// trust store): `executor` "host" runs commands on this computer (asked) once trusted and never
// against a policy that wants the sandbox; "os" and the strict profile keep every command in the
// sandbox; `sandbox.denyRead` hides paths from the file tools too; `limits` only lower.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { FakeModelClient, type FakeTurn, fake } from "../../src/model/fake.ts";
import type { Approver } from "../../src/permission/types.ts";
import type { AgentEvent, StopReason } from "../../src/core-types/events.ts";
import { commandLimits, sessionLimits, unlimitedNotice } from "../../src/compose/limits.ts";
import { DEFAULT_LIMITS } from "../../src/runtime/loop.ts";
import type { SandboxProbe } from "../../src/sandbox/probe.ts";
import { machineSandbox } from "../support/sandboxSupport.ts";
import { answering, NO_SANDBOX, notices, type Place, place, prepareIn, results } from "../support/extensionHarness.ts";

async function turn(
  where: Place,
  turns: FakeTurn[],
  options: { trust?: boolean; approver?: Approver; probe?: SandboxProbe } = {},
) {
  const model = new FakeModelClient(turns);
  const runtime = await prepareIn(where, model, {
    probe: options.probe ?? machineSandbox,
    projectTrust: async () => options.trust ?? false,
    ...(options.approver && { approver: options.approver }),
  });
  try {
    const events: AgentEvent[] = [];
    const stop: StopReason = await runtime.runTurn("go", new AbortController().signal, (event) => events.push(event));
    return {
      stop,
      events,
      results: results(events),
      notices: notices(events).join("\n"),
      system: model.requests[0]?.system ?? "",
    };
  } finally {
    await runtime.close();
  }
}

/** Writes a file in HOME: on the host it works; in the sandbox HOME is read-only. */
const TOUCH_HOME = (where: Place) =>
  fake.toolCall("bash", { command: `touch ${join(where.home, "from-command.txt")}` });

describe("a project's executor choice", () => {
  test('"host", trusted: commands run on this computer after a question, and the model is told so', async () => {
    using where = place();
    where.project(".garuda/settings.json", JSON.stringify({ executor: "host" }));
    const approver = answering("once");
    const ran = await turn(where, [TOUCH_HOME(where), fake.text("done")], { trust: true, approver });
    expect(approver.asked).toHaveLength(1);
    expect(approver.asked[0]?.tool).toBe("bash");
    expect(ran.results[0]?.status).toBe("completed");
    expect(existsSync(join(where.home, "from-command.txt"))).toBe(true);
    expect(ran.system).toContain("No OS sandbox is available");
    expect(ran.notices).toContain('"executor": "host"');
  });

  test('"host", not trusted: commands stay in the sandbox (HOME read-only), without a question', async () => {
    using where = place();
    where.project(".garuda/settings.json", JSON.stringify({ executor: "host" }));
    const approver = answering("once");
    const ran = await turn(where, [TOUCH_HOME(where), fake.text("done")], { trust: false, approver });
    expect(approver.asked).toHaveLength(0);
    expect(existsSync(join(where.home, "from-command.txt"))).toBe(false);
    expect(ran.results[0]?.output).toContain("Read-only file system");
  });

  test('"host" against a policy that requires the sandbox: not used, with a notice', async () => {
    using where = place();
    where.project(".garuda/settings.json", JSON.stringify({ executor: "host" }));
    where.user("no-managed-policy.json", JSON.stringify({ requireSandbox: true }));
    const approver = answering("once");
    const ran = await turn(where, [TOUCH_HOME(where), fake.text("done")], { trust: true, approver });
    expect(approver.asked).toHaveLength(0);
    expect(existsSync(join(where.home, "from-command.txt"))).toBe(false);
    expect(ran.notices).toContain('so the project\'s "executor": "host"');
  });

  test('"os" with no OS sandbox on this computer: commands are refused, not asked (without it: asked)', async () => {
    using where = place();
    where.project(".garuda/settings.json", JSON.stringify({ executor: "os" }));
    const approver = answering("once");
    const ran = await turn(where, [fake.toolCall("bash", { command: "true" }), fake.text("done")], {
      approver,
      probe: NO_SANDBOX,
    });
    expect(approver.asked).toHaveLength(0);
    expect(ran.results[0]?.status).toBe("denied");
    expect(ran.results[0]?.output).toContain("(executor(os)), and no OS sandbox is available on this computer");

    using control = place();
    const asked = answering("once");
    await turn(control, [fake.toolCall("bash", { command: "true" }), fake.text("done")], {
      approver: asked,
      probe: NO_SANDBOX,
    });
    expect(asked.asked).toHaveLength(1);
  });
});

describe("the sandbox hints follow the project's choice", () => {
  test(
    "strict profile: a command the sandbox stopped is not offered a run outside it " + "(without it: offered)",
    async () => {
      using where = place();
      const free = await turn(where, [TOUCH_HOME(where), fake.text("done")]);
      expect(free.results[0]?.output).toContain("outside_sandbox: true");
      where.project(".garuda/settings.json", JSON.stringify({ profile: "strict" }));
      const strict = await turn(where, [TOUCH_HOME(where), fake.text("done")]);
      expect(strict.results[0]?.output).toContain("Commands may not run outside the sandbox here");
      expect(strict.results[0]?.output).not.toContain("outside_sandbox: true");
    },
  );
});

describe("other project settings in a session", () => {
  test("sandbox.denyRead hides a folder from read_file too (without it the file is read)", async () => {
    using where = place();
    where.project("secrets/key.txt", "TOP-SECRET\n");
    const read = [fake.toolCall("read_file", { path: "secrets/key.txt" }), fake.text("done")];
    const open = await turn(where, read);
    expect(open.results[0]?.output).toContain("TOP-SECRET");
    where.project(".garuda/settings.json", JSON.stringify({ sandbox: { denyRead: ["secrets"] } }));
    const hidden = await turn(where, read);
    expect(hidden.results[0]?.status).toBe("denied");
    expect(hidden.results[0]?.output).not.toContain("TOP-SECRET");
  });

  test(
    "a trusted writePath that is a symlink inside the project is not made writable, " + "and a notice says why",
    async () => {
      using where = place();
      mkdirSync(join(where.home, "elsewhere"), { recursive: true });
      symlinkSync(join(where.home, "elsewhere"), join(where.root, "cache"));
      where.project(".garuda/settings.json", JSON.stringify({ sandbox: { writePaths: ["cache"] } }));
      const ran = await turn(where, [fake.toolCall("bash", { command: "touch cache/x" }), fake.text("done")], {
        trust: true,
      });
      expect(ran.notices).toContain(
        `${join(where.root, "cache")} is not writable in the sandbox: it goes through ` +
          `the symbolic link ${join(where.root, "cache")}`,
      );
      expect(existsSync(join(where.home, "elsewhere", "x"))).toBe(false);
    },
  );

  test(
    "a trusted writePath as wide as a refused root (/, /usr, /tmp, ~/.garuda) is " +
      "not made writable, with a notice (negative control: a project folder is)",
    async () => {
      using where = place();
      mkdirSync(join(where.root, "out"));
      where.project(
        ".garuda/settings.json",
        JSON.stringify({ sandbox: { writePaths: ["/", "/usr", "/tmp", "~/.garuda/x", "out"] } }),
      );
      const ran = await turn(
        where,
        [fake.toolCall("bash", { command: "touch out/ok; touch /usr/garuda-probe-x; echo $?" }), fake.text("done")],
        { trust: true },
      );
      const lines = ran.notices.split("\n");
      for (const path of ["/", "/usr", "/tmp", join(where.home, ".garuda/x")]) {
        expect(
          lines.some(
            (line) =>
              line.startsWith(`${path} (sandbox.writePaths in`) &&
              line.includes("is not writable in the sandbox: it is"),
          ),
        ).toBe(true);
      }
      expect(ran.notices).not.toContain("out (sandbox.writePaths");
      expect(existsSync(join(where.root, "out", "ok"))).toBe(true);
      expect(existsSync("/usr/garuda-probe-x")).toBe(false);
    },
  );

  test("limits: the project can lower them, never raise them; the team policy may raise them", () => {
    expect(sessionLimits({}, { maxSteps: 100_000, tokenBudget: 10 ** 12 })).toEqual({
      maxSteps: DEFAULT_LIMITS.maxSteps,
      tokenBudget: DEFAULT_LIMITS.tokenBudget,
    });
    expect(sessionLimits({}, { maxSteps: 5 })).toEqual({ maxSteps: 5, tokenBudget: DEFAULT_LIMITS.tokenBudget });
    expect(sessionLimits({ maxSteps: 200 }, { maxSteps: 100 })).toEqual({
      maxSteps: 100,
      tokenBudget: DEFAULT_LIMITS.tokenBudget,
    });
    expect(sessionLimits({ maxSteps: 200 }, {})).toEqual({ maxSteps: 200, tokenBudget: DEFAULT_LIMITS.tokenBudget });
  });

  test(
    "command limits: a project's lower process limit applies to its commands, and " +
      "the result names the file to raise it in (negative control: without it the " +
      "same loop runs)",
    async () => {
      const loop =
        "perl -e 'my $n = 0; for (1..150) { my $p = fork; if (!defined $p) { print " +
        'STDERR "fork: $!\\n"; last } if (!$p) { sleep 30; exit 0 } $n++ } print ' +
        '"started $n\\n"\'';
      {
        using where = place();
        where.project(".garuda/settings.json", JSON.stringify({ limits: { processes: 64 } }));
        const ran = await turn(where, [fake.toolCall("bash", { command: loop }), fake.text("done")]);
        const output = ran.results[0]?.output ?? "";
        expect(output).toContain(
          "[Garuda: the command hit the sandbox's process limit (at most 64 processes and " +
            "threads may run at once), and starting another one failed.",
        );
        expect(output).toContain(
          `The project's ${join(where.root, ".garuda", "settings.json")} lowers it ` +
            `(limits.processes); the user can raise it there (up to `,
        );
        expect(output).not.toContain("started 150");
      }
      {
        using where = place();
        const ran = await turn(where, [fake.toolCall("bash", { command: loop }), fake.text("done")]);
        expect(ran.results[0]?.output).toContain("started 150");
        expect(ran.results[0]?.output).not.toContain("[Garuda:");
      }
    },
  );

  test(
    "command limits from the policy: the user's ~/.garuda/policy.json raises " +
      "Garuda's default, a managed file's value is named as the team's",
    () => {
      const sources = {
        project: {},
        projectFile: "/p/.garuda/settings.json",
        userPolicyFile: "/h/.garuda/policy.json",
        defaults: { processes: 1_024, memoryMB: 8_192 },
      };
      expect(commandLimits({ ...sources, policy: { limits: {} } })).toEqual({
        processes: 1_024,
        memoryMB: 8_192,
        raise: {
          processes:
            "To allow more, the user can set limits.processes in /h/.garuda/policy.json (a " +
            "project's .garuda/settings.json can only lower it).",
          memoryMB:
            "To allow more, the user can set limits.memoryMB in /h/.garuda/policy.json (a " +
            "project's .garuda/settings.json can only lower it).",
          cpuSeconds:
            "To allow more, the user can set limits.cpuSeconds in /h/.garuda/policy.json (a " +
            "project's .garuda/settings.json can only lower it).",
        },
      });
      const user = { source: "user-policy" as const, file: "/h/.garuda/policy.json" };
      const managed = { source: "managed-policy" as const, file: "/etc/garuda/policy.json" };
      const raised = commandLimits({
        ...sources,
        policy: {
          limits: { processes: 5_000, memoryMB: 2_048, cpuSeconds: 600 },
          limitOrigins: { processes: user, memoryMB: managed, cpuSeconds: user },
        },
      });
      expect(raised.processes).toBe(5_000);
      expect(raised.memoryMB).toBe(2_048);
      expect(raised.cpuSeconds).toBe(600);
      expect(raised.raise?.processes).toBe(
        "It is limits.processes in /h/.garuda/policy.json; the user can raise it there.",
      );
      expect(raised.raise?.memoryMB).toBe(
        "The team policy /etc/garuda/policy.json sets it (limits.memoryMB); " +
          "only whoever manages that file can raise it.",
      );
      // The project only lowers: a higher value is ignored, a lower one applies.
      const project = commandLimits({
        ...sources,
        project: { processes: 100_000, memoryMB: 512, cpuSeconds: 60 },
        policy: { limits: { memoryMB: 2_048 }, limitOrigins: { memoryMB: managed } },
      });
      expect(project.processes).toBe(1_024);
      expect(project.memoryMB).toBe(512);
      expect(project.cpuSeconds).toBe(60);
      expect(project.raise?.memoryMB).toBe(
        "The project's /p/.garuda/settings.json lowers it (limits.memoryMB); " +
          "the user can raise it there (up to 2,048).",
      );
      expect(project.raise?.cpuSeconds).toBe(
        "The project's /p/.garuda/settings.json lowers it (limits.cpuSeconds); the user can raise it there.",
      );
    },
  );

  test(
    "a Linux sandbox without a process limit (root, no cgroup) is named once at the " +
      "start; otherwise nothing is said",
    () => {
      const limits = { processes: 1_024, memoryMB: 4_096 };
      const bwrap = { available: true as const, kind: "bwrap" as const };
      expect(unlimitedNotice(bwrap, { limits, processes: "none", memory: "rlimit" })).toStartWith(
        "Sandboxed commands have no process limit here: Garuda runs as root",
      );
      expect(unlimitedNotice(bwrap, { limits, processes: "cgroup", memory: "cgroup" })).toBeUndefined();
      expect(unlimitedNotice(bwrap, { limits, processes: "rlimit", memory: "rlimit" })).toBeUndefined();
      expect(
        unlimitedNotice({ available: true, kind: "seatbelt" }, { limits, processes: "none", memory: "rlimit" }),
      ).toBeUndefined();
    },
  );

  test("a project's lower step limit ends the turn at it", async () => {
    using where = place();
    where.project("a.txt", "a\n");
    where.project(".garuda/settings.json", JSON.stringify({ limits: { maxSteps: 1 } }));
    const ran = await turn(where, [
      fake.toolCall("read_file", { path: "a.txt" }),
      fake.toolCall("read_file", { path: "a.txt" }),
      fake.text("done"),
    ]);
    expect(ran.stop).toBe("max_steps");
  });
});
