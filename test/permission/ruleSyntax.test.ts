import { describe, expect, test } from "bun:test";
import { parseRule, ruleProblem, toolMatches } from "../../src/permission/ruleSyntax.ts";
import type { PermissionRequest, PermissionTarget } from "../../src/permission/types.ts";

const request = (tool: string, target: PermissionTarget): PermissionRequest => ({
  tool,
  readOnly: false,
  target,
  title: tool,
  preview: "",
});

describe("rule syntax", () => {
  test.each([
    ["bash", { tool: "bash", specifier: undefined }],
    ["bash(npm test *)", { tool: "bash", specifier: "npm test *" }],
    ["mcp__github__*", { tool: "mcp__github__*", specifier: undefined }],
    ["*(src/**)", { tool: "*", specifier: "src/**" }],
    ["edit_file(src/(group)/a.ts)", { tool: "edit_file", specifier: "src/(group)/a.ts" }],
  ])("%p parses", (text, parsed) => {
    expect(parseRule(text)).toEqual(parsed);
  });

  test.each(["", "bash()", "bash(x", "ba sh", "9tool", "(x)"])("%p is not a rule", (text) => {
    expect(parseRule(text)).toBeUndefined();
    expect(ruleProblem(text)).toBeString();
  });

  test("a tool part matches by name, by prefix, or by category", () => {
    const cmd = request("process_manager", { kind: "command", command: "npm run dev", sandboxed: true });
    const read = request("grep", { kind: "path", path: "a", access: "read" });
    const write = request("write_file", { kind: "path", path: "a", access: "write" });
    const mcp = request("mcp__github__create_issue", { kind: "input" });
    expect(toolMatches("bash", cmd)).toBe(true);
    expect(toolMatches("process_manager", cmd)).toBe(true);
    expect(toolMatches("read", read)).toBe(true);
    expect(toolMatches("edit", read)).toBe(false);
    expect(toolMatches("edit", write)).toBe(true);
    expect(toolMatches("read", write)).toBe(false);
    expect(toolMatches("mcp__github__*", mcp)).toBe(true);
    expect(toolMatches("mcp__gitlab__*", mcp)).toBe(false);
    expect(toolMatches("*", mcp)).toBe(true);
    expect(toolMatches("network", request("bash", { kind: "network", host: "x", port: 443 }))).toBe(true);
    expect(toolMatches("web_fetch", request("fetch2", { kind: "url", url: "https://x" }))).toBe(true);
  });
});
