// One case per step of the decision order, each with the later step that it beats, and a
// negative control that shows the later step really would have applied.
import { describe, expect, test } from "bun:test";
import type { Decision } from "../../src/permission/types.ts";
import {
  command,
  engine,
  fetchUrl,
  input,
  MANAGED,
  network,
  policyWith,
  read,
  rule,
  write,
} from "../support/permissionFixtures.ts";

const by = (decision: Decision) => (decision.outcome === "ask" ? "ask" : `${decision.outcome}:${decision.by}`);

describe("decision order, first match wins", () => {
  test("0 team policy beats an allow rule, the read-only step and the sandbox", () => {
    const policy = policyWith({
      rules: [rule("deny", "bash(rm)", "managed-policy"), rule("deny", "read(secrets/**)", "managed-policy")],
    });
    const e = engine({ policy, rules: [rule("allow", "bash(rm *)"), rule("allow", "read(secrets/**)")] });
    expect(by(e.check(command("rm -rf build"), "build"))).toBe("deny:policy");
    expect(by(e.check(command("rm -rf build", true), "build"))).toBe("deny:policy");
    expect(by(e.check(read("secrets/a.txt"), "build"))).toBe("deny:policy");
    // Control: without the policy the same requests pass.
    const open = engine({ rules: [rule("allow", "bash(rm *)", "user-policy")] });
    expect(by(open.check(command("rm -rf build"), "build"))).toBe("allow:rule");
    expect(by(open.check(read("secrets/a.txt"), "build"))).toBe("allow:read_only");
  });

  test("1 a sensitive file beats a deny rule and the read-only step; an allow rule naming it lets it through", () => {
    const e = engine({ rules: [rule("deny", "read(.env)")] });
    const decision = e.check(read(".env"), "build");
    expect(by(decision)).toBe("deny:sensitive");
    expect(decision.rule).toMatchObject({ source: "builtin", pattern: "read(**/.env)" });
    expect(by(engine().check(read("config/.env.local"), "build"))).toBe("deny:sensitive");
    expect(by(engine().check(write(".env"), "build"))).toBe("deny:sensitive");
    expect(by(engine().check(read("/home/u/.ssh/id_rsa"), "build"))).toBe("deny:sensitive");
    // Control: an allow rule that names the file.
    expect(by(engine({ rules: [rule("allow", "read(.env)")] }).check(read(".env"), "build"))).toBe("allow:read_only");
    expect(by(engine({ rules: [rule("allow", "edit_file(./.env)")] }).check(write(".env"), "build"))).toBe(
      "allow:rule",
    );
    // A broad allow does not name it.
    expect(by(engine({ rules: [rule("allow", "read(**)")] }).check(read(".env"), "build"))).toBe("deny:sensitive");
  });

  test("1 a symlink to a sensitive file is caught by its real path", () => {
    const linked = read("notes.txt");
    if (linked.target.kind === "path") linked.target.realPath = "/home/u/.aws/credentials";
    expect(by(engine().check(linked, "build"))).toBe("deny:sensitive");
  });

  test("2 a write into .git/ beats an allow rule (and the deny rule step)", () => {
    const e = engine({ rules: [rule("allow", "edit(**)"), rule("deny", "edit(.git/**)")] });
    expect(by(e.check(write(".git/hooks/pre-commit"), "build"))).toBe("deny:git");
    expect(by(e.check(write("vendor/lib/.git/config"), "build"))).toBe("deny:git");
    expect(by(e.check(write("/home/u/.garuda/policy.json"), "build"))).toBe("deny:protected");
    // Control: the same allow rule covers an ordinary file, and reading .git is fine.
    expect(by(e.check(write("src/a.ts"), "build"))).toBe("allow:rule");
    expect(by(e.check(read(".git/HEAD"), "build"))).toBe("allow:read_only");
  });

  test("3 a deny rule beats plan mode, the read-only step and the sandbox", () => {
    const e = engine({
      rules: [rule("deny", "edit(src/**)"), rule("deny", "read(private/**)"), rule("deny", "bash(curl)")],
    });
    expect(by(e.check(write("src/a.ts"), "plan"))).toBe("deny:rule");
    expect(by(e.check(read("private/notes.md"), "build"))).toBe("deny:rule");
    expect(by(e.check(command("curl https://x", true), "build"))).toBe("deny:rule");
    // Control.
    expect(by(e.check(write("lib/a.ts"), "plan"))).toBe("deny:plan");
    expect(by(e.check(command("wget https://x", true), "build"))).toBe("allow:sandbox");
  });

  test("3 a read deny rule also stops commands that name the path (bash cannot walk around it)", () => {
    const e = engine({
      rules: [rule("deny", "read(secrets/**)"), rule("deny", "edit(src/**)"), rule("deny", "read_file(docs/**)")],
    });
    expect(by(e.check(command("cat secrets/api.txt", true), "build"))).toBe("deny:rule");
    expect(by(e.check(command("grep -r key . > out && cp secrets/a /tmp/x", true), "build"))).toBe("deny:rule");
    expect(by(e.check(command("tar czf x.tgz --directory=secrets/sub ."), "build"))).toBe("deny:rule");
    // Controls: an edit denial does not stop reading, a rule for one tool stays with that tool.
    expect(by(e.check(command("cat src/a.ts", true), "build"))).toBe("allow:sandbox");
    expect(by(e.check(command("cat docs/a.md", true), "build"))).toBe("allow:sandbox");
    const policy = policyWith({ rules: [rule("deny", "read(~/secrets/**)", "managed-policy")] });
    expect(by(engine({ policy }).check(command("cat ~/secrets/x", true), "build"))).toBe("deny:policy");
    expect(by(engine({ policy }).check(command("cat $HOME/secrets/x", true), "build"))).toBe("deny:policy");
  });

  test("4 plan mode denies edits without asking, even with an allow rule", () => {
    const e = engine({ rules: [rule("allow", "edit(src/**)"), rule("allow", "bash(npm test *)", "user-policy")] });
    const edit = e.check(write("src/a.ts"), "plan");
    expect(by(edit)).toBe("deny:plan");
    expect(edit.outcome === "deny" && edit.reason).toContain("plan");
    expect(by(e.check(command("npm test"), "plan"))).toBe("deny:plan");
    expect(by(e.check(input("mcp__github__create_issue"), "plan"))).toBe("deny:plan");
    // Sandboxed commands run (read-only project), reads run.
    expect(by(e.check(command("npm test", true), "plan"))).toBe("allow:sandbox");
    expect(by(e.check(read("src/a.ts"), "plan"))).toBe("allow:read_only");
    // Control: the same requests in build mode.
    expect(by(e.check(write("src/a.ts"), "build"))).toBe("allow:rule");
    expect(by(e.check(command("npm test"), "build"))).toBe("allow:rule");
    // A non-read-only MCP tool with an allow rule may run in plan mode.
    expect(
      by(
        engine({ rules: [rule("allow", "mcp__github__create_issue")] }).check(
          input("mcp__github__create_issue"),
          "plan",
        ),
      ),
    ).toBe("allow:rule");
  });

  test("5 a read-only tool beats an ask rule; reads outside the root ask", () => {
    const e = engine({ rules: [rule("ask", "read(src/**)")] });
    expect(by(e.check(read("src/a.ts"), "build"))).toBe("allow:read_only");
    const outside = e.check(read("/etc/hosts"), "build");
    expect(by(outside)).toBe("ask");
    expect(outside.outcome === "ask" && outside.request.note).toBe("It is outside the project folder.");
    expect(by(engine({ rules: [rule("allow", "read(/etc/**)")] }).check(read("/etc/hosts"), "build"))).toBe(
      "allow:rule",
    );
    // Control: a tool that is not read-only gets the ask rule.
    expect(by(e.check({ ...read("src/a.ts"), readOnly: false }, "build"))).toBe("ask");
  });

  test("5 the read-only step covers reads and target-less tools, not URLs or writes", () => {
    const e = engine();
    expect(by(e.check(input("web_search", true), "build"))).toBe("allow:read_only");
    expect(by(e.check({ ...fetchUrl("https://example.com/?q=secret"), readOnly: true }, "build"))).toBe("ask");
    expect(by(e.check({ ...write("src/a.ts"), readOnly: true }, "build"))).toBe("ask");
    expect(
      by(
        engine({ rules: [rule("allow", "web_fetch(example.com)")] }).check(
          { ...fetchUrl("https://example.com/"), readOnly: true },
          "build",
        ),
      ),
    ).toBe("allow:rule");
  });

  test("6 a sandboxed command beats an ask rule; hidden characters still ask", () => {
    const e = engine({ rules: [rule("ask", "bash(git push *)")] });
    expect(by(e.check(command("git push", true), "build"))).toBe("allow:sandbox");
    expect(by(e.check(command("git push\u200b", true), "build"))).toBe("ask");
    const secret = e.check(command("cat .env", true), "build");
    expect(by(secret)).toBe("ask");
    expect(secret.outcome === "ask" && secret.request.note).toBe("It names .env, which may hold secrets.");
    expect(by(engine({ rules: [rule("allow", "read(.env)")] }).check(command("cat .env", true), "build"))).toBe(
      "allow:sandbox",
    );
    // Control: the same command outside the sandbox, and with no sandbox at all.
    expect(by(e.check(command("git push"), "build"))).toBe("ask");
    expect(by(engine({ sandboxAvailable: false }).check(command("ls", true), "build"))).toBe("ask");
  });

  test("7 an ask rule beats an allow rule, and offers no session choice", () => {
    const e = engine({ rules: [rule("ask", "bash(git push *)"), rule("allow", "bash(git *)", "user-policy")] });
    const decision = e.check(command("git push origin main"), "build");
    expect(by(decision)).toBe("ask");
    expect(decision.rule?.pattern).toBe("bash(git push *)");
    expect(decision.outcome === "ask" && decision.request.choices).toEqual(["once", "deny"]);
    // Control: a command the ask rule does not cover.
    expect(by(e.check(command("git status"), "build"))).toBe("allow:rule");
  });

  test("8 an allow rule or a session rule allows; 9 anything else asks", () => {
    const e = engine({
      rules: [rule("allow", "web_fetch(*.github.com)"), rule("allow", "network(registry.npmjs.org)")],
    });
    expect(by(e.check(fetchUrl("https://api.github.com/x"), "build"))).toBe("allow:rule");
    expect(by(e.check(network("registry.npmjs.org"), "build"))).toBe("allow:rule");
    const other = e.check(fetchUrl("https://github.com/x"), "build");
    expect(by(other)).toBe("ask");
    expect(other.rule).toMatchObject({ pattern: "default", source: "builtin" });
    expect(other.outcome === "ask" && other.request.choices).toEqual(["once", "session", "deny"]);
  });

  test("every decision names its rule and the rule's source", () => {
    const e = engine({ rules: [rule("allow", "bash(npm test *)", "user-policy")] });
    for (const request of [
      command("npm test"),
      command("make"),
      read("a.ts"),
      read(".env"),
      write(".git/x"),
      command("ls", true),
    ]) {
      const decision = e.check(request, "build");
      expect(decision.rule?.pattern).toBeString();
      expect(decision.rule?.source).toBeString();
    }
    const decision = e.check(command("npm test"), "build");
    expect(decision.rule).toEqual(rule("allow", "bash(npm test *)", "user-policy"));
  });

  test("requests in a mode the policy forbids are denied by the policy", () => {
    const e = engine({ policy: policyWith({ allowedModes: { modes: ["plan"], origins: [MANAGED] } }) });
    const denied = e.check(read("a.ts"), "build");
    expect(by(denied)).toBe("deny:policy");
    expect(denied.rule).toMatchObject({ pattern: "policy.allowedModes", source: "managed-policy", file: MANAGED.file });
    expect(by(e.check(read("a.ts"), "plan"))).toBe("allow:read_only");
  });
});
