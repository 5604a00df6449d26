import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { checkRules, checkStartup, importsOf, readSourceTree, resolveRef, type SourceTree } from "./support/architecture.ts";

const repo = join(import.meta.dir, "..");
const tree = readSourceTree(repo);

/** The real tree with one planted file. */
function planted(file: string, source: string): SourceTree {
  return new Map([...tree, [file, source]]);
}
const rulesBroken = (t: SourceTree) => [...new Set(checkRules(t).map((v) => v.rule))].sort();

/** What `garuda --help` loads: the entry, the command tree, and every command module it lists. */
function helpEntries(t: SourceTree): string[] {
  const main = "src/cli/main.ts";
  const commands = importsOf(t.get(main) ?? "")
    .filter((ref) => ref.dynamic)
    .map((ref) => resolveRef(main, ref.specifier));
  return ["src/cli/index.ts", main, ...commands];
}

describe("architecture (DESIGN.md dependency rules)", () => {
  test("the source tree keeps every rule", () => {
    expect(tree.size).toBeGreaterThan(10);
    expect(checkRules(tree)).toEqual([]);
  });

  test("--version and --help load neither SDK (rule 8)", () => {
    expect(checkStartup(tree, ["src/cli/index.ts"])).toEqual([]);
    const entries = helpEntries(tree);
    expect(entries.length).toBeGreaterThan(2);
    expect(checkStartup(tree, entries)).toEqual([]);
  });

  // Negative controls: each rule catches a planted violation.
  test("rule 1: the core never imports a front end", () => {
    expect(rulesBroken(planted("src/runtime/x.ts", 'import { main } from "../cli/main.ts";'))).toEqual([1]);
    expect(rulesBroken(planted("src/runtime/x.ts", 'const m = await import("../acp/server.ts");'))).toContain(1);
  });

  test("rule 2: only src/acp/ imports the ACP SDK, only acpCommand.ts loads it, and it neither spawns nor prints", () => {
    expect(rulesBroken(planted("src/cli/x.ts", 'import * as acp from "@agentclientprotocol/sdk";'))).toEqual([2]);
    expect(rulesBroken(planted("src/cli/x.ts", 'const s = await import("../acp/server.ts");'))).toEqual([2]);
    expect(rulesBroken(planted("src/cli/acpCommand.ts", 'import { serve } from "../acp/server.ts";'))).toEqual([2]);
    expect(rulesBroken(planted("src/cli/acpCommand.ts", 'const s = await import("../acp/server.ts");'))).toEqual([]);
    expect(rulesBroken(planted("src/acp/x.ts", 'import * as acp from "@agentclientprotocol/sdk";'))).toEqual([]);
    expect(rulesBroken(planted("src/acp/x.ts", 'Bun.spawn(["ls"]);'))).toEqual([2, 6]);
    expect(rulesBroken(planted("src/acp/x.ts", 'process.stdout.write("{}");'))).toEqual([2, 5]);
  });

  test("rule 3: only src/model/anthropic.ts imports the Anthropic SDK", () => {
    expect(rulesBroken(planted("src/model/other.ts", 'import Anthropic from "@anthropic-ai/sdk";'))).toEqual([3]);
    expect(rulesBroken(planted("src/model/other.ts", 'import type { X } from "@anthropic-ai/sdk/resources";'))).toEqual([3]);
  });

  test("rule 4: only src/cli/ imports citty", () => {
    expect(rulesBroken(planted("src/config/x.ts", 'import { defineCommand } from "citty";'))).toEqual([4]);
  });

  test("rule 5: nothing outside src/cli/ writes to stdout", () => {
    expect(rulesBroken(planted("src/runtime/x.ts", "process.stdout.write('x');"))).toEqual([5]);
    expect(rulesBroken(planted("src/runtime/x.ts", "console.log('x');"))).toEqual([5]);
    expect(rulesBroken(planted("src/runtime/x.ts", "console.error('to stderr is fine');"))).toEqual([]);
    expect(rulesBroken(planted("src/runtime/x.ts", "// console.log('a comment')"))).toEqual([]);
  });

  test("rule 6: only src/sandbox/ starts processes", () => {
    expect(rulesBroken(planted("src/tools/x.ts", 'import { spawn } from "node:child_process";'))).toEqual([6]);
    expect(rulesBroken(planted("src/store/x.ts", "Bun.spawnSync(['git']);"))).toEqual([6]);
    expect(rulesBroken(planted("src/sandbox/x.ts", "Bun.spawn(['bwrap']);"))).toEqual([]);
  });

  test("rule 7: only tools, stores and config write files", () => {
    expect(rulesBroken(planted("src/runtime/x.ts", 'import { writeFileSync } from "node:fs"; writeFileSync("a", "b");'))).toEqual([7]);
    expect(rulesBroken(planted("src/runtime/x.ts", 'await Bun.write("a", "b");'))).toEqual([7]);
    expect(rulesBroken(planted("src/tools/x.ts", 'import { writeFileSync } from "node:fs"; writeFileSync("a", "b");'))).toEqual([]);
  });

  test("rule 8: a static SDK import on the start-up path is caught", () => {
    const t = planted("src/cli/modelsCommand.ts", 'import Anthropic from "@anthropic-ai/sdk";');
    expect(checkStartup(t, helpEntries(t)).map((v) => v.rule)).toEqual([8]);
    const lazy = planted("src/cli/modelsCommand.ts", 'const sdk = () => import("@anthropic-ai/sdk");');
    expect(checkStartup(lazy, helpEntries(lazy))).toEqual([]);
    const typeOnly = planted("src/cli/modelsCommand.ts", 'import type { Client } from "@agentclientprotocol/sdk";');
    expect(checkStartup(typeOnly, helpEntries(typeOnly))).toEqual([]);
  });
});
