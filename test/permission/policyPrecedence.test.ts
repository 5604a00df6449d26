// The team policy in the engine: its denials cannot be loosened by anything below it, and a
// decision names the strongest source whose rule matched.
import { describe, expect, test } from "bun:test";
import type { Decision } from "../../src/permission/types.ts";
import {
  command,
  engine,
  fetchUrl,
  MANAGED,
  network,
  policyWith,
  read,
  rule,
  scriptedApprover,
  USER,
  write,
} from "../support/permissionFixtures.ts";

const by = (decision: Decision) => (decision.outcome === "ask" ? "ask" : `${decision.outcome}:${decision.by}`);
const signal = () => new AbortController().signal;

describe("the team policy cannot be loosened", () => {
  const rmPolicy = policyWith({
    disallowedCommands: ["rm"],
    rules: [{ ...rule("deny", "bash(rm)", "managed-policy"), file: MANAGED.file }],
  });

  test("a project allow of bash(rm*) does not beat disallowedCommands: [rm]", async () => {
    const e = engine({ policy: rmPolicy, rules: [rule("allow", "bash(rm*)")] });
    const decision = e.check(command("rm -rf build"), "build");
    expect(by(decision)).toBe("deny:policy");
    expect(decision.rule).toMatchObject({ source: "managed-policy", file: MANAGED.file, pattern: "bash(rm)" });
    for (const walkAround of [
      "sudo rm x",
      "/bin/rm x",
      "env X=1 rm x",
      "ls && rm x",
      "echo $(rm x)",
      "bash -c 'rm x'",
    ]) {
      expect(by(e.check(command(walkAround), "build"))).toBe("deny:policy");
    }
    // Nor can the user's answer: the approver is never asked.
    const approver = scriptedApprover("session");
    expect(by(await e.authorize(command("rm x"), { mode: "build", approver, signal: signal() }))).toBe("deny:policy");
    expect(approver.asked).toHaveLength(0);
  });

  test("negative control: without the policy the same allow works", () => {
    const e = engine({ rules: [rule("allow", "bash(rm*)", "user-policy")] });
    expect(by(e.check(command("rm -rf build"), "build"))).toBe("allow:rule");
  });

  test("policy denyPaths beat an allow rule naming the file", () => {
    const policy = policyWith({
      rules: [rule("deny", "read(~/secrets/**)", "user-policy"), rule("deny", "edit(~/secrets/**)", "user-policy")],
    });
    const e = engine({ policy, rules: [rule("allow", "read(/home/u/secrets/a.txt)")] });
    expect(by(e.check(read("/home/u/secrets/a.txt"), "build"))).toBe("deny:policy");
    expect(by(e.check(write("/home/u/secrets/a.txt"), "build"))).toBe("deny:policy");
    expect(
      by(
        engine({ rules: [rule("allow", "read(/home/u/secrets/a.txt)")] }).check(read("/home/u/secrets/a.txt"), "build"),
      ),
    ).toBe("allow:rule");
  });

  test("blocked hosts beat the project's allow list; a strict allowlist refuses every other host", () => {
    const blocked = policyWith({
      rules: [
        rule("deny", "network(evil.example)", "managed-policy"),
        rule("deny", "web_fetch(evil.example)", "managed-policy"),
      ],
    });
    const e = engine({
      policy: blocked,
      rules: [rule("allow", "network(evil.example)"), rule("allow", "web_fetch(evil.example)")],
    });
    expect(by(e.check(network("evil.example"), "build"))).toBe("deny:policy");
    expect(by(e.check(fetchUrl("https://evil.example/x"), "build"))).toBe("deny:policy");
    const strict = policyWith({
      network: { blockedHosts: [], allow: ["registry.npmjs.org"], strictAllowlist: MANAGED },
      rules: [rule("allow", "network(registry.npmjs.org)", "managed-policy")],
    });
    const s = engine({ policy: strict, rules: [rule("allow", "network(example.com)")] });
    expect(by(s.check(network("registry.npmjs.org"), "build"))).toBe("allow:rule");
    expect(by(s.check(network("example.com"), "build"))).toBe("deny:policy");
    expect(by(s.check(fetchUrl("https://example.com"), "build"))).toBe("deny:policy");
    expect(by(engine({ rules: [rule("allow", "network(example.com)")] }).check(network("example.com"), "build"))).toBe(
      "allow:rule",
    );
  });

  test("requireSandbox denies commands outside the sandbox, even allowed ones; no sandbox = no commands", () => {
    const policy = policyWith({ requireSandbox: MANAGED });
    const e = engine({ policy, rules: [rule("allow", "bash(npm test *)")] });
    expect(by(e.check(command("npm test"), "build"))).toBe("deny:policy");
    expect(by(e.check(command("npm test", true), "build"))).toBe("allow:sandbox");
    const none = engine({ policy, sandboxAvailable: false });
    const decision = none.check(command("npm test"), "build");
    expect(by(decision)).toBe("deny:policy");
    expect(decision.outcome === "deny" && decision.reason).toContain("no OS sandbox is available");
    expect(
      by(engine({ rules: [rule("allow", "bash(npm test *)", "user-policy")] }).check(command("npm test"), "build")),
    ).toBe("allow:rule");
  });

  test("allowOutsideSandbox: false forbids the run-outside offer, but not the only way when no sandbox exists", () => {
    const policy = policyWith({ forbidOutsideSandbox: USER });
    expect(by(engine({ policy }).check(command("make"), "build"))).toBe("deny:policy");
    expect(by(engine({ policy, sandboxAvailable: false }).check(command("make"), "build"))).toBe("ask");
    expect(
      by(
        engine({ policy: policyWith({ strictProfile: USER }), sandboxAvailable: false }).check(
          command("make"),
          "build",
        ),
      ),
    ).toBe("deny:policy");
  });

  test(
    "a project's strict profile denies every command outside the sandbox, even an " +
      "allowed one (without it: allowed)",
    () => {
      const e = engine({
        projectSandbox: { pattern: "profile(strict)", file: "/p/.garuda/settings.json" },
        rules: [rule("allow", "bash(npm test *)", "user-policy")],
      });
      const decision = e.check(command("npm test"), "build");
      expect(by(decision)).toBe("deny:rule");
      expect(decision.rule).toMatchObject({
        pattern: "profile(strict)",
        source: "project",
        file: "/p/.garuda/settings.json",
      });
      expect(decision.outcome === "deny" && decision.reason).toContain(
        "run every command in the OS sandbox (profile(strict)), and this command would run outside it",
      );
      expect(by(e.check(command("npm test", true), "build"))).toBe("allow:sandbox");
      expect(
        by(engine({ rules: [rule("allow", "bash(npm test *)", "user-policy")] }).check(command("npm test"), "build")),
      ).toBe("allow:rule");
    },
  );

  test(
    "a required audit log that cannot be written refuses checks and the proxy's " +
      "allowlisted hosts (refusal); written again, they pass",
    () => {
      let failure: string | undefined = "disk full";
      const e = engine({
        auditFailure: () => failure,
        rules: [rule("allow", "network(registry.npmjs.org)", "user-policy")],
      });
      expect(by(e.check(network("registry.npmjs.org"), "build"))).toBe("deny:policy");
      expect(e.refusal(network("registry.npmjs.org"), "build")).toContain("writing it failed (disk full)");
      failure = undefined;
      expect(by(e.check(network("registry.npmjs.org"), "build"))).toBe("allow:rule");
      expect(e.refusal(network("registry.npmjs.org"), "build")).toBeUndefined();
    },
  );

  test(
    "a project's allow rule covers a command in the sandbox, not one that leaves " + "it; the user's own rules do",
    () => {
      const e = engine({ rules: [rule("allow", "bash(npm run e2e *)")] });
      expect(by(e.check(command("npm run e2e"), "build"))).toBe("ask");
      expect(by(e.check(command("npm run e2e", true), "build"))).toBe("allow:sandbox");
      expect(
        by(
          engine({ rules: [rule("allow", "bash(npm run e2e *)", "user-policy")] }).check(
            command("npm run e2e"),
            "build",
          ),
        ),
      ).toBe("allow:rule");
      expect(
        by(engine({ rules: [rule("allow", "bash(npm run e2e *)", "session")] }).check(command("npm run e2e"), "build")),
      ).toBe("allow:session");
      // Without a sandbox every command runs on the host, and the trusted project's rule is what the user approved.
      expect(
        by(
          engine({ rules: [rule("allow", "bash(npm run e2e *)")], sandboxAvailable: false }).check(
            command("npm run e2e"),
            "build",
          ),
        ),
      ).toBe("allow:rule");
    },
  );

  test("a policy ask rule is not skipped by a project allow rule", () => {
    const e = engine({
      policy: policyWith({ rules: [rule("ask", "bash(git push *)", "managed-policy")] }),
      rules: [rule("allow", "bash(git push *)")],
    });
    const decision = e.check(command("git push"), "build");
    expect(by(decision)).toBe("ask");
    expect(decision.rule?.source).toBe("managed-policy");
  });

  test("sources, strongest first: the decision names the strongest rule that matched", () => {
    const e = engine({
      policy: policyWith({
        rules: [rule("allow", "bash(npm *)", "user-policy"), rule("allow", "bash(make *)", "managed-policy")],
      }),
      rules: [rule("allow", "bash(npm test *)"), rule("allow", "bash(make *)")],
    });
    expect(e.check(command("npm test"), "build").rule?.source).toBe("user-policy");
    expect(e.check(command("make all"), "build").rule?.source).toBe("managed-policy");
    expect(e.rules().map((r) => r.source)).toEqual(["managed-policy", "user-policy", "project", "project"]);
  });

  test("a policy without session approvals offers none", () => {
    const e = engine({ policy: policyWith({ forbidSessionApprovals: MANAGED }) });
    const decision = e.check(command("npm test"), "build");
    expect(decision.outcome === "ask" && decision.request.choices).toEqual(["once", "deny"]);
    const control = engine().check(command("npm test"), "build");
    expect(control.outcome === "ask" && control.request.choices).toEqual(["once", "session", "deny"]);
  });

  test("an invalid rule is an error naming its file", () => {
    expect(() => engine({ rules: [rule("allow", "bash(")] })).toThrow("/work/proj/.garuda/settings.json");
  });
});
