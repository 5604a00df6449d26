import { describe, expect, test } from "bun:test";
import { sessionPrefix } from "../../src/permission/commandPrefix.ts";
import { command, engine, input, network, read } from "../support/permissionFixtures.ts";

describe("session rules take the narrowest useful shape", () => {
  test.each([
    ["npm test", "npm test *"],
    ["npm test -- --watch", "npm test *"],
    ["npm run build -- --prod", "npm run build *"],
    ["git commit -m 'fix it'", "git commit *"],
    ["git status --short", "git status *"],
    ["ls -la", "ls *"],
    ["python -m pytest -x", "python -m pytest *"],
    ["docker compose up -d", "docker compose up *"],
    ["./gradlew build", "./gradlew build *"],
  ])("%p → %p", (line, prefix) => {
    expect(sessionPrefix(line.split(" "))).toBe(prefix);
  });

  test.each([
    "rm -rf build",
    "git push origin main",
    "curl https://x",
    "sudo apt install x",
    "node -e 'x'",
    "git -C x status",
    "FOO=1 make",
    "export PATH=./bin:$PATH",
    "set -e",
    "unset HOME",
  ])("%p gets no session rule", (line) => {
    expect(sessionPrefix(line.split(" "))).toBeUndefined();
  });

  const proposed = (request: Parameters<ReturnType<typeof engine>["check"]>[0]) => {
    const decision = engine().check(request, "build");
    return decision.outcome === "ask" ? decision.request.sessionRules : "not asked";
  };

  test("one rule per part of a line, never the whole tool", () => {
    expect(proposed(command("cd web && npm test"))).toEqual(["bash(cd *)", "bash(npm test *)"]);
    expect(proposed(command("rm -rf build && npm test"))).toBeUndefined();
    expect(proposed(command("echo 'unclosed"))).toBeUndefined();
  });

  test("parts already allowed are not proposed again", () => {
    const e = engine({ rules: [{ effect: "allow", pattern: "bash(npm test *)", source: "project" }] });
    const decision = e.check(command("npm test && npm run lint"), "build");
    expect(decision.outcome === "ask" && decision.request.sessionRules).toEqual(["bash(npm run lint *)"]);
  });

  test("reads outside the root: that folder; network: that host; other tools: the tool", () => {
    expect(proposed(read("/opt/lib/x/README.md"))).toEqual(["read_file(/opt/lib/x/**)"]);
    expect(proposed(network("registry.npmjs.org"))).toEqual(["network(registry.npmjs.org)"]);
    expect(proposed(input("mcp__github__create_issue"))).toEqual(["mcp__github__create_issue"]);
  });
});
