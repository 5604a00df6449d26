// The system prompt: built once, no date or counter, the project's instruction files with their
// rules; byte-identical system and tools across a session's requests through the real client.
import { describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fake } from "../../src/model/fake.ts";
import { INSTRUCTIONS_BUDGET, readInstructions } from "../../src/runtime/instructions.ts";
import { buildSystemPrompt } from "../../src/runtime/systemPrompt.ts";
import { tempDir } from "../support/tempDir.ts";
import { fakeExecutor, testRuntime, turn } from "../support/runtimeHelpers.ts";

describe("instruction files", () => {
  test("GARUDA.md first, then AGENTS.md and CLAUDE.md; identical texts once", () => {
    using root = tempDir();
    writeFileSync(join(root.path, "CLAUDE.md"), "Same rules.\n");
    writeFileSync(join(root.path, "AGENTS.md"), "Same rules.");
    writeFileSync(join(root.path, "GARUDA.md"), "Use bun.");
    const read = readInstructions(root.path);
    expect(read.files.map((file) => [file.name, file.text])).toEqual([
      ["GARUDA.md", "Use bun."],
      ["AGENTS.md", "Same rules."],
    ]);
    expect(read.notes).toEqual([]);
  });

  test("one shared budget, given to GARUDA.md first", () => {
    using root = tempDir();
    writeFileSync(join(root.path, "GARUDA.md"), "g".repeat(INSTRUCTIONS_BUDGET - 10));
    writeFileSync(join(root.path, "AGENTS.md"), "a".repeat(100));
    writeFileSync(join(root.path, "CLAUDE.md"), "c".repeat(100));
    const read = readInstructions(root.path);
    expect(read.files.map((file) => [file.name, file.text.length, file.cut])).toEqual([
      ["GARUDA.md", INSTRUCTIONS_BUDGET - 10, false],
      ["AGENTS.md", 10, true],
    ]);
    expect(read.notes).toEqual([
      "AGENTS.md was cut: the instruction files passed 40,000 characters.",
      "CLAUDE.md was not read: the instruction files passed 40,000 characters.",
    ]);
  });

  test("a file whose real path is outside the root is not read", () => {
    using root = tempDir();
    using outside = tempDir();
    writeFileSync(join(outside.path, "secret.md"), "ssh key here");
    symlinkSync(join(outside.path, "secret.md"), join(root.path, "AGENTS.md"));
    mkdirSync(join(root.path, "docs"));
    writeFileSync(join(root.path, "docs", "rules.md"), "Inside rules.");
    symlinkSync(join(root.path, "docs", "rules.md"), join(root.path, "CLAUDE.md"));
    const read = readInstructions(root.path);
    expect(read.files.map((file) => [file.name, file.text])).toEqual([["CLAUDE.md", "Inside rules."]]);
    expect(read.notes).toEqual(["AGENTS.md was not read: it points outside the project."]);
  });
});

describe("the prompt", () => {
  const input = {
    version: "9.9.9",
    root: "/work/p",
    platform: "linux",
    arch: "x64",
    sandbox: { available: true as const, kind: "bwrap" as const },
    instructions: [{ name: "GARUDA.md", text: "Use bun.", cut: false }],
  };

  test("names the rules, the environment and the project's instructions; no date, time or mode", () => {
    const prompt = buildSystemPrompt(input);
    expect(prompt).toContain("Read before you edit");
    expect(prompt).toContain("A denied call is final for that action");
    expect(prompt).toContain("In plan mode you cannot change anything");
    expect(prompt).toContain("- Project root: /work/p.");
    expect(prompt).toContain("OS sandbox (bwrap)");
    expect(prompt).toContain("# Project instructions");
    expect(prompt).toContain("## GARUDA.md\n\nUse bun.");
    expect(prompt).not.toMatch(/\b20\d\d-\d\d-\d\d\b|\d\d:\d\d/);
    expect(prompt).not.toMatch(/build mode|Plan mode is on/i);
    expect(buildSystemPrompt(input)).toBe(prompt);
    const noSandbox = buildSystemPrompt({
      ...input,
      sandbox: { available: false, reason: "no bwrap", fix: "install it" },
    });
    expect(noSandbox).toContain("No OS sandbox is available on this computer, so every command asks the user first");
  });

  test("built once per Runtime: a changed GARUDA.md waits for the next session; the mode stays out", async () => {
    using root = tempDir();
    writeFileSync(join(root.path, "GARUDA.md"), "Version one.");
    await using t = testRuntime({ root: root.path, turns: [fake.text("a"), fake.text("b")] });
    await turn(t.runtime, "one");
    writeFileSync(join(root.path, "GARUDA.md"), "Version two.");
    await t.runtime.setMode("plan");
    await turn(t.runtime, "two");
    const [first, second] = t.model.requests;
    expect(second?.system).toBe(first?.system as string);
    expect(first?.system).toContain("Version one.");
    expect(JSON.stringify(second?.tools)).toBe(JSON.stringify(first?.tools));
    const note = second?.messages.at(-1)?.content[0];
    expect(note?.type === "text" && note.text).toStartWith("<garuda_note>\nPlan mode is on");
  });

  test("a missing sandbox is a notice at the first turn", async () => {
    await using t = testRuntime({
      executor: fakeExecutor({ available: false, reason: "bubblewrap is not installed.", fix: "Install bubblewrap." }),
      turns: [fake.text("ok")],
    });
    expect(t.runtime.pendingNotices()).toEqual([
      {
        level: "warning",
        text: "No OS sandbox: bubblewrap is not installed. Every command asks before it runs. Install bubblewrap.",
      },
    ]);
    const { events } = await turn(t.runtime, "hi");
    expect(events[0]).toEqual({
      type: "notice",
      level: "warning",
      text: "No OS sandbox: bubblewrap is not installed. Every command asks before it runs. Install bubblewrap.",
    });
    expect(t.runtime.pendingNotices()).toEqual([]);
    expect(t.model.lastRequest.system).toContain("No OS sandbox is available");
  });
});
