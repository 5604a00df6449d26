import { describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "../../src/errors/configError.ts";
import { garudaPaths } from "../../src/config/paths.ts";
import {
  checkModelAllowed,
  isModelAllowed,
  loadTeamPolicy,
  managedPolicyPath,
  policyRules,
} from "../../src/config/policy.ts";
import { tempDir } from "../support/tempDir.ts";

interface Setup {
  managed: string;
  user: string;
  root: string;
}

/** A temp machine: a managed policy file, a home with ~/.garuda/policy.json, and a project. */
function withPolicies(
  files: { managed?: unknown; user?: unknown; project?: unknown },
  run: (setup: Setup) => void,
): void {
  using dir = tempDir("garuda-policy-");
  const managed = join(dir.path, "etc", "garuda", "policy.json");
  const user = garudaPaths(join(dir.path, "home")).policy;
  const root = join(dir.path, "proj");
  const put = (file: string, content: unknown) => {
    mkdirSync(join(file, ".."), { recursive: true });
    writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content));
  };
  mkdirSync(root, { recursive: true });
  if (files.managed !== undefined) put(managed, files.managed);
  if (files.user !== undefined) put(user, files.user);
  if (files.project !== undefined) put(join(root, ".garuda", "policy.json"), files.project);
  run({ managed, user, root });
}

function configError(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error("expected a ConfigError");
}

describe("team policy files", () => {
  test("the managed file's place per platform", () => {
    expect(managedPolicyPath("linux")).toBe("/etc/garuda/policy.json");
    expect(managedPolicyPath("darwin")).toBe("/Library/Application Support/Garuda/policy.json");
    expect(managedPolicyPath("win32")).toBeUndefined();
  });

  test("no files: no policy", () => {
    withPolicies({}, ({ managed, user, root }) => {
      const { policy, notices } = loadTeamPolicy({ managed, user, root });
      expect(policy.origins).toEqual([]);
      expect(policy.rules).toEqual([]);
      expect(policy.requireSandbox).toBeNull();
      expect(notices).toEqual([]);
    });
  });

  test("lists are joined, restrictive booleans combine toward the stricter value, limits take the smallest", () => {
    withPolicies(
      {
        managed: {
          disallowedCommands: ["rm"],
          requireSandbox: false,
          allowOutsideSandbox: true,
          denyPaths: ["~/secrets/**"],
          network: { blockedHosts: ["evil.example"], allow: ["npm"] },
          limits: { maxSteps: 100, tokenBudget: 50_000, processes: 2_000, memoryMB: 4_096 },
        },
        user: {
          disallowedCommands: ["rm", "git push"],
          requireSandbox: true,
          allowOutsideSandbox: false,
          allowSessionApprovals: false,
          network: { strictAllowlist: true, allow: ["example.com"] },
          limits: { maxSteps: 40, processes: 500, cpuSeconds: 900 },
          profile: "strict",
        },
      },
      ({ managed, user }) => {
        const { policy } = loadTeamPolicy({ managed, user });
        expect(policy.origins).toEqual([
          { source: "managed-policy", file: managed },
          { source: "user-policy", file: user },
        ]);
        expect(policy.disallowedCommands).toEqual(["rm", "git push"]);
        expect(policy.denyPaths).toEqual(["~/secrets/**"]);
        expect(policy.requireSandbox).toEqual({ source: "user-policy", file: user });
        expect(policy.forbidOutsideSandbox).toEqual({ source: "user-policy", file: user });
        expect(policy.forbidSessionApprovals).toEqual({ source: "user-policy", file: user });
        expect(policy.strictProfile).toEqual({ source: "user-policy", file: user });
        expect(policy.network.blockedHosts).toEqual(["evil.example"]);
        expect(policy.network.allow).toContain("registry.npmjs.org");
        expect(policy.network.allow).toContain("example.com");
        expect(policy.network.strictAllowlist).toEqual({ source: "user-policy", file: user });
        expect(policy.limits).toEqual({
          maxSteps: 40,
          tokenBudget: 50_000,
          processes: 500,
          memoryMB: 4_096,
          cpuSeconds: 900,
        });
        // Each command limit remembers the file it came from (the message says where to raise it).
        expect(policy.limitOrigins).toEqual({
          processes: { source: "user-policy", file: user },
          memoryMB: { source: "managed-policy", file: managed },
          cpuSeconds: { source: "user-policy", file: user },
        });
      },
    );
  });

  test("allowedModels and audit come from the managed file when it sets them, else from the user's", () => {
    withPolicies(
      {
        managed: { allowedModels: ["claude-sonnet-*"], audit: { enabled: true, level: "mutations" } },
        user: { allowedModels: ["claude-opus-5", "claude-sonnet-5"], audit: { enabled: false, level: "denials" } },
      },
      ({ managed, user }) => {
        const { policy } = loadTeamPolicy({ managed, user });
        expect(policy.allowedModels).toEqual({
          models: ["claude-sonnet-*"],
          origin: { source: "managed-policy", file: managed },
        });
        expect(policy.audit).toEqual({
          enabled: true,
          level: "mutations",
          origin: { source: "managed-policy", file: managed },
        });
      },
    );
    withPolicies({ user: { allowedModels: ["claude-opus-5"], audit: { level: "denials" } } }, ({ managed, user }) => {
      const { policy } = loadTeamPolicy({ managed, user });
      expect(policy.allowedModels?.models).toEqual(["claude-opus-5"]);
      expect(policy.audit).toEqual({ enabled: false, level: "denials", origin: { source: "user-policy", file: user } });
    });
  });

  test("allowedModes keep only what every file allows; nothing in common is an error naming both files", () => {
    withPolicies(
      { managed: { allowedModes: ["build", "plan"] }, user: { allowedModes: ["plan"] } },
      ({ managed, user }) => {
        expect(loadTeamPolicy({ managed, user }).policy.allowedModes?.modes).toEqual(["plan"]);
      },
    );
    withPolicies({ managed: { allowedModes: ["build"] }, user: { allowedModes: ["plan"] } }, ({ managed, user }) => {
      const error = configError(() => loadTeamPolicy({ managed, user }));
      expect(error.message).toContain(managed);
      expect(error.message).toContain(user);
    });
  });

  test("policy rules carry their source and file, strongest file first", () => {
    withPolicies(
      {
        managed: {
          disallowedCommands: ["rm"],
          denyPaths: ["/srv/keys/**"],
          network: { blockedHosts: ["evil.example"] },
        },
        user: {
          permissions: { allow: ["bash(npm test *)"], ask: ["bash(git push *)"], deny: ["web_fetch(*.internal)"] },
        },
      },
      ({ managed, user }) => {
        const rules = policyRules(loadTeamPolicy({ managed, user }).policy);
        expect(rules).toEqual([
          { effect: "deny", pattern: "bash(rm)", source: "managed-policy", file: managed },
          { effect: "deny", pattern: "read(/srv/keys/**)", source: "managed-policy", file: managed },
          { effect: "deny", pattern: "edit(/srv/keys/**)", source: "managed-policy", file: managed },
          { effect: "deny", pattern: "network(evil.example)", source: "managed-policy", file: managed },
          { effect: "deny", pattern: "web_fetch(evil.example)", source: "managed-policy", file: managed },
          { effect: "deny", pattern: "web_fetch(*.internal)", source: "user-policy", file: user },
          { effect: "ask", pattern: "bash(git push *)", source: "user-policy", file: user },
          { effect: "allow", pattern: "bash(npm test *)", source: "user-policy", file: user },
        ]);
      },
    );
  });

  test.each([
    ["not JSON", "{ nope"],
    ["an unknown key", { disalowedCommands: ["rm"] }],
    ["a wrong type", { requireSandbox: "yes" }],
    ["a bad rule", { permissions: { allow: ["bash(npm test"] } }],
    ["a bad host", { network: { blockedHosts: ["http://x.com/"] } }],
    ["a bad limit", { limits: { maxSteps: 0 } }],
    ["a process limit too low to start a command", { limits: { processes: 2 } }],
    ["a memory limit in bytes, not MiB", { limits: { memoryMB: 0.5 } }],
    ["a misspelt command limit", { limits: { memoryMb: 1024 } }],
    ["a bad audit level", { audit: { level: "some" } }],
  ])("a malformed policy (%s) is an error naming the file", (_what, content) => {
    withPolicies({ user: content }, ({ managed, user }) => {
      const error = configError(() => loadTeamPolicy({ managed, user }));
      expect(error.file).toBe(user);
      expect(error.message).toStartWith(`${user}: `);
    });
    withPolicies({ managed: content }, ({ managed, user }) => {
      expect(configError(() => loadTeamPolicy({ managed, user })).file).toBe(managed);
    });
  });

  test("an unreadable policy is an error naming the file (fail closed)", () => {
    withPolicies({ user: { requireSandbox: true } }, ({ managed, user }) => {
      mkdirSync(join(managed, ".."), { recursive: true });
      mkdirSync(managed);
      expect(configError(() => loadTeamPolicy({ managed, user })).file).toBe(managed);
    });
    if (process.getuid?.() !== 0) {
      withPolicies({ user: { requireSandbox: true } }, ({ managed, user }) => {
        chmodSync(user, 0o000);
        expect(configError(() => loadTeamPolicy({ managed, user })).file).toBe(user);
      });
    }
  });

  test("a policy file in the project is ignored, with a notice that says why", () => {
    withPolicies(
      { project: { allowOutsideSandbox: true, permissions: { allow: ["bash"] } } },
      ({ managed, user, root }) => {
        const { policy, notices } = loadTeamPolicy({ managed, user, root });
        expect(policy.rules).toEqual([]);
        expect(policy.origins).toEqual([]);
        expect(notices).toHaveLength(1);
        expect(notices[0]).toContain(join(root, ".garuda", "policy.json"));
        expect(notices[0]).toContain("is ignored");
        expect(notices[0]).toContain("never from a project");
      },
    );
    // Even a broken one: it is never read.
    withPolicies({ project: "{ nope" }, ({ managed, user, root }) => {
      expect(loadTeamPolicy({ managed, user, root }).notices).toHaveLength(1);
    });
  });
});

describe("allowed models", () => {
  test("no allowedModels: every model", () => {
    withPolicies({}, ({ managed, user }) => {
      const { policy } = loadTeamPolicy({ managed, user });
      expect(isModelAllowed(policy, "claude-opus-5")).toBe(true);
      expect(() => checkModelAllowed(policy, "openrouter/x")).not.toThrow();
    });
  });

  test("wildcards, and anthropic/x is x; a refusal names the file and the allowed models", () => {
    withPolicies({ managed: { allowedModels: ["claude-sonnet-*", "openrouter/meta/*"] } }, ({ managed, user }) => {
      const { policy } = loadTeamPolicy({ managed, user });
      expect(isModelAllowed(policy, "claude-sonnet-5")).toBe(true);
      expect(isModelAllowed(policy, "anthropic/claude-sonnet-4-6")).toBe(true);
      expect(isModelAllowed(policy, "openrouter/meta/llama-4")).toBe(true);
      expect(isModelAllowed(policy, "claude-opus-5")).toBe(false);
      const error = configError(() => checkModelAllowed(policy, "claude-opus-5"));
      expect(error.file).toBe(managed);
      expect(error.message).toContain('does not allow the model "claude-opus-5"');
      expect(error.message).toContain("claude-sonnet-*");
    });
  });
});

describe("a loaded policy in the engine", () => {
  test("disallowedCommands from the file beat a project allow; without the file the allow works", async () => {
    const { createPermissionEngine } = await import("../../src/permission/engine.ts");
    const request = {
      tool: "bash",
      readOnly: false,
      target: { kind: "command" as const, command: "sudo rm -rf build", sandboxed: false },
      title: "",
      preview: "",
    };
    const projectAllow = [{ effect: "allow" as const, pattern: "bash(sudo *)", source: "project" as const }];
    withPolicies({ managed: { disallowedCommands: ["rm"] } }, ({ managed, user, root }) => {
      const { policy } = loadTeamPolicy({ managed, user, root });
      const engine = createPermissionEngine({
        root,
        home: "/home/u",
        policy,
        rules: projectAllow,
        sandboxAvailable: true,
      });
      expect(engine.check(request, "build")).toMatchObject({
        outcome: "deny",
        by: "policy",
        rule: { source: "managed-policy", file: managed },
      });
    });
    withPolicies({}, ({ managed, user, root }) => {
      const { policy } = loadTeamPolicy({ managed, user, root });
      // No OS sandbox here: commands run on the host, where a trusted project's allow rule applies.
      const engine = createPermissionEngine({
        root,
        home: "/home/u",
        policy,
        rules: projectAllow,
        sandboxAvailable: false,
      });
      expect(engine.check(request, "build")).toMatchObject({ outcome: "allow", by: "rule" });
    });
  });
});

describe("policy rules passed to the engine twice", () => {
  test("are kept once", async () => {
    const { createPermissionEngine } = await import("../../src/permission/engine.ts");
    withPolicies({ managed: { disallowedCommands: ["rm"] } }, ({ managed, user, root }) => {
      const { policy } = loadTeamPolicy({ managed, user, root });
      const engine = createPermissionEngine({
        root,
        home: "/home/u",
        policy,
        rules: policyRules(policy),
        sandboxAvailable: true,
      });
      expect(engine.rules()).toEqual([
        { effect: "deny", pattern: "bash(rm)", source: "managed-policy", file: managed },
      ]);
    });
  });
});
