import { describe, expect, test } from "bun:test";
import type { Approver } from "../../src/permission/types.ts";
import {
  command,
  engine,
  fetchUrl,
  HOME,
  input,
  read,
  ROOT,
  rule,
  scriptedApprover,
  write,
} from "../support/permissionFixtures.ts";

const signal = () => new AbortController().signal;

describe("authorize", () => {
  test("the callId goes into the ApprovalRequest, with title, preview, change and labels", async () => {
    const approver = scriptedApprover("once");
    const e = engine();
    const decision = await e.authorize(command("make", false, "call_7"), { mode: "build", approver, signal: signal() });
    expect(decision).toMatchObject({ outcome: "allow", by: "user" });
    const asked = approver.asked[0];
    expect(asked).toMatchObject({ callId: "call_7", tool: "bash", title: "$ make", preview: "make", hidden: false });
    expect(asked?.labels).toEqual({ once: "Allow once", session: "Allow for this session", deny: "Deny" });
    const edit = scriptedApprover("deny");
    await e.authorize(write("src/a.ts"), { mode: "build", approver: edit, signal: signal() });
    expect(edit.asked[0]?.change).toEqual({ path: "src/a.ts", oldText: "a", newText: "b" });
  });

  test("an aborted signal denies at once, without asking", async () => {
    const approver = scriptedApprover("once");
    const controller = new AbortController();
    controller.abort();
    const decision = await engine().authorize(command("make"), { mode: "build", approver, signal: controller.signal });
    expect(decision).toMatchObject({ outcome: "deny", by: "user" });
    expect(approver.asked).toHaveLength(0);
  });

  test("an abort while the question is open denies, even if the approver never answers", async () => {
    const controller = new AbortController();
    const hanging: Approver = { ask: () => new Promise(() => {}) };
    const pending = engine().authorize(command("make"), {
      mode: "build",
      approver: hanging,
      signal: controller.signal,
    });
    controller.abort();
    expect(await pending).toMatchObject({ outcome: "deny", by: "user" });
  });

  test("deny, a throwing approver, and no approver at all", async () => {
    expect(
      await engine().authorize(command("make"), {
        mode: "build",
        approver: scriptedApprover("deny"),
        signal: signal(),
      }),
    ).toMatchObject({ outcome: "deny", by: "user" });
    const broken: Approver = { ask: () => Promise.reject(new Error("closed")) };
    expect(
      await engine().authorize(command("make"), { mode: "build", approver: broken, signal: signal() }),
    ).toMatchObject({ outcome: "deny", by: "user" });
    expect(await engine().authorize(command("make"), { mode: "build", signal: signal() })).toMatchObject({
      outcome: "deny",
      by: "unattended",
    });
  });

  test("decisions that need no question never reach the approver", async () => {
    const approver = scriptedApprover("deny");
    const e = engine();
    expect(await e.authorize(read("a.ts"), { mode: "build", approver, signal: signal() })).toMatchObject({
      outcome: "allow",
      by: "read_only",
    });
    expect(await e.authorize(write("a.ts"), { mode: "plan", approver, signal: signal() })).toMatchObject({
      outcome: "deny",
      by: "plan",
    });
    expect(approver.asked).toHaveLength(0);
  });

  test("hidden characters set the flag, and leave no session choice for a command", async () => {
    const approver = scriptedApprover("once");
    await engine().authorize(command("ls\u202e -la"), { mode: "build", approver, signal: signal() });
    expect(approver.asked[0]?.hidden).toBe(true);
    expect(approver.asked[0]?.choices).toEqual(["once", "deny"]);
    const plain = scriptedApprover("once");
    await engine().authorize(command("ls -la"), { mode: "build", approver: plain, signal: signal() });
    expect(plain.asked[0]?.hidden).toBe(false);
    const tool = scriptedApprover("once");
    await engine().authorize(input("mcp__x__y"), { mode: "build", approver: tool, signal: signal() });
    expect(tool.asked[0]?.hidden).toBe(false);
    const preview = scriptedApprover("once");
    await engine().authorize(
      { ...fetchUrl("https://x.dev"), preview: `ok${" ".repeat(40)}hidden tail` },
      { mode: "build", approver: preview, signal: signal() },
    );
    expect(preview.asked[0]?.hidden).toBe(true);
  });

  test(
    "a change that adds hidden characters sets the flag even past the preview's " +
      "cut; one the file already held does not",
    async () => {
      const ask = async (oldText: string | null, newText: string) => {
        const approver = scriptedApprover("once");
        const request = {
          ...write("src/a.ts"),
          preview: "--- a/src/a.ts\n+++ b/src/a.ts\n… 900 more diff lines not shown",
          change: { path: "src/a.ts", oldText, newText },
        };
        await engine().authorize(request, { mode: "build", approver, signal: signal() });
        return approver.asked[0]?.hidden;
      };
      expect(await ask(null, "clean\nconst s = 'x\u202E';\n")).toBe(true);
      expect(await ask("old\n", "old\nnew line\n")).toBe(false);
      // An emoji sequence (zero-width joiner) the file already had is not news at every edit.
      expect(await ask("family 👨\u200D👩\n", "family 👨\u200D👩\nmore\n")).toBe(false);
    },
  );

  test("'session' adds the narrow rule: the same command passes, others still ask", async () => {
    const e = engine();
    const approver = scriptedApprover("session");
    const first = await e.authorize(command("npm test"), { mode: "build", approver, signal: signal() });
    expect(approver.asked[0]?.sessionRules).toEqual(["bash(npm test *)"]);
    expect(first).toMatchObject({
      outcome: "allow",
      by: "session",
      rule: { pattern: "bash(npm test *)", source: "session" },
    });
    expect(e.sessionRules()).toEqual([{ effect: "allow", pattern: "bash(npm test *)", source: "session" }]);
    expect(e.check(command("npm test -- --watch"), "build")).toMatchObject({ outcome: "allow", by: "session" });
    expect(e.check(command("npm install"), "build").outcome).toBe("ask");
    expect(e.check(command("npm test && curl x | sh"), "build").outcome).toBe("ask");
    expect(e.revokeSessionRule("bash(npm test *)")).toBe(true);
    expect(e.check(command("npm test"), "build").outcome).toBe("ask");
  });

  test(
    "'session' for a file write in the project: every later call of that tool in " + "the project, named so",
    async () => {
      const e = engine();
      const approver = scriptedApprover("session");
      await e.authorize(write("src/app/[id].tsx"), { mode: "build", approver, signal: signal() });
      expect(approver.asked[0]?.sessionRules).toEqual(["edit_file(./**)"]);
      expect(approver.asked[0]?.labels).toEqual({
        once: "Allow once",
        session: "Allow all edits for this session",
        deny: "Deny",
      });
      for (const path of [
        "src/app/[id].tsx",
        "src/app/i.tsx",
        "README.md",
        `${ROOT}/deep/er/x.ts`,
        ".github/workflows/ci.yml",
      ]) {
        expect(e.check(write(path), "build")).toMatchObject({
          outcome: "allow",
          by: "session",
          rule: { pattern: "edit_file(./**)", source: "session" },
        });
      }
      // Another tool, plan mode: not covered.
      expect(e.check(write("src/a.ts", "write_file"), "build").outcome).toBe("ask");
      expect(e.check(write("src/a.ts"), "plan")).toMatchObject({ outcome: "deny", by: "plan" });
    },
  );

  test(
    "after 'Allow all edits': outside the project, through a symlink out of it, " +
      "secrets, .git/ and ~/.garuda still ask or are refused",
    async () => {
      const e = engine();
      await e.authorize(write("src/a.ts"), { mode: "build", approver: scriptedApprover("session"), signal: signal() });
      expect(e.check(write("/etc/profile"), "build").outcome).toBe("ask");
      expect(e.check(write(`${HOME}/.bashrc`), "build").outcome).toBe("ask");
      const throughLink = write("src/link.ts");
      throughLink.target = { kind: "path", path: "src/link.ts", access: "write", realPath: `${HOME}/.bashrc` };
      expect(e.check(throughLink, "build").outcome).toBe("ask");
      expect(e.check(write(".env"), "build")).toMatchObject({ outcome: "deny", by: "sensitive" });
      expect(e.check(write("config/id_rsa"), "build")).toMatchObject({ outcome: "deny", by: "sensitive" });
      expect(e.check(write(".git/hooks/pre-commit"), "build")).toMatchObject({ outcome: "deny", by: "git" });
      expect(e.check(write(`${HOME}/.garuda/policy.json`), "build")).toMatchObject({
        outcome: "deny",
        by: "protected",
      });
    },
  );

  test("a write outside the project asked with 'session' covers that file only, under the usual name", async () => {
    const e = engine();
    const approver = scriptedApprover("session");
    await e.authorize(write("/opt/notes.txt"), { mode: "build", approver, signal: signal() });
    expect(approver.asked[0]?.sessionRules).toEqual(["edit_file(/opt/notes.txt)"]);
    expect(approver.asked[0]?.labels.session).toBe("Allow for this session");
    expect(e.check(write("/opt/notes.txt"), "build")).toMatchObject({ outcome: "allow", by: "session" });
    expect(e.check(write("/opt/other.txt"), "build").outcome).toBe("ask");
    expect(e.check(write("src/a.ts"), "build").outcome).toBe("ask");
  });

  test(
    "an MCP tool's 'session' is named for the tool; an unattended run still " + "suggests the narrowest rule",
    async () => {
      const tool = scriptedApprover("once");
      await engine().authorize(input("mcp__github__create_issue"), { mode: "build", approver: tool, signal: signal() });
      expect(tool.asked[0]?.labels.session).toBe("Allow all mcp__github__create_issue calls for this session");
      const unattended = await engine().authorize(write("src/a.ts"), { mode: "build", signal: signal() });
      expect(unattended).toMatchObject({ outcome: "deny", by: "unattended" });
      expect(unattended.outcome === "deny" && unattended.reason).toContain(
        "An allow rule such as edit_file(./src/a.ts) would let it run.",
      );
    },
  );

  test("'session' for a URL covers that host", async () => {
    const e = engine();
    await e.authorize(fetchUrl("https://docs.rs/serde"), {
      mode: "build",
      approver: scriptedApprover("session"),
      signal: signal(),
    });
    expect(e.check(fetchUrl("https://docs.rs/tokio"), "build")).toMatchObject({ outcome: "allow", by: "session" });
    expect(e.check(fetchUrl("https://crates.io/x"), "build").outcome).toBe("ask");
  });

  test("a session rule cannot beat a deny rule", async () => {
    const e = engine({ rules: [rule("deny", "bash(npm publish)")] });
    await e.authorize(command("npm run build"), {
      mode: "build",
      approver: scriptedApprover("session"),
      signal: signal(),
    });
    expect(e.check(command("npm run build && npm publish"), "build")).toMatchObject({ outcome: "deny", by: "rule" });
  });

  test("every decision and every answer goes to the audit callback with its rule and source", async () => {
    const e = engine({ rules: [rule("deny", "bash(curl)")] });
    await e.authorize(command("curl x"), { mode: "build", approver: scriptedApprover(), signal: signal() });
    await e.authorize(command("make"), { mode: "build", approver: scriptedApprover("once"), signal: signal() });
    expect(e.events.map((event) => event.type)).toEqual(["decision", "decision", "answer"]);
    const [denied, asked, answer] = e.events;
    expect(denied?.decision).toMatchObject({ outcome: "deny", rule: { pattern: "bash(curl)", source: "project" } });
    expect(asked?.decision).toMatchObject({ outcome: "ask", rule: { pattern: "default", source: "builtin" } });
    expect(answer).toMatchObject({ type: "answer", choice: "once", decision: { outcome: "allow", by: "user" } });
  });
});
