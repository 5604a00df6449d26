import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { garudaPaths } from "../../src/config/paths.ts";
import { codeOf } from "../../src/errors/caught.ts";
import type { PermissionRequest } from "../../src/permission/types.ts";
import {
  type AuditEvent,
  auditFolder,
  decisionEvent,
  openAuditLog,
  permissionAuditEvent,
  requestEvent,
  verifyAuditLog,
} from "../../src/store/audit.ts";
import { GENESIS, lineHash } from "../../src/store/auditChain.ts";
import { tempDir } from "../support/tempDir.ts";

const REQUEST: PermissionRequest = {
  tool: "bash",
  callId: "call-1",
  readOnly: false,
  target: { kind: "command", command: "npm test", sandboxed: false },
  title: "$ npm test",
  preview: "npm test",
};
const READ: PermissionRequest = {
  tool: "read_file",
  callId: "call-2",
  readOnly: true,
  target: { kind: "path", path: "/p/a.ts", access: "read" },
  title: "Read a.ts",
  preview: "",
};

function lines(file: string): Record<string, unknown>[] {
  return readFileSync(file, "utf8")
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line));
}

function writeLog(home: string, root: string, events: AuditEvent[]): string {
  const log = openAuditLog({ auditDir: garudaPaths(home).audit, root, session: "s-1" });
  for (const event of events) log.record(event);
  log.close();
  return log.file;
}

const FIVE: AuditEvent[] = [
  { type: "tool_request", tool: "bash", readOnly: false, title: "$ ls" },
  { type: "decision", tool: "bash", readOnly: false, outcome: "allow", by: "sandbox", source: "builtin" },
  { type: "tool_result", tool: "bash", readOnly: false, ok: true },
  { type: "notice", text: "hello" },
  { type: "stop", reason: "done" },
];

function rewrite(file: string, change: (lines: string[]) => string[]): void {
  const all = readFileSync(file, "utf8").trimEnd().split("\n");
  writeFileSync(file, `${change(all).join("\n")}\n`);
}

describe("audit log: files and lines", () => {
  test("one 0600 file per log under audit/<project>-<hash8>/, folders 0700, lines chained", () => {
    using home = tempDir();
    using project = tempDir("my project-");
    const paths = garudaPaths(home.path);
    const log = openAuditLog({
      auditDir: paths.audit,
      root: project.path,
      session: "s-1",
      now: () => new Date("2030-01-02T03:04:05.006Z"),
    });
    log.record(requestEvent(REQUEST));
    log.record(
      decisionEvent(REQUEST, {
        outcome: "allow",
        by: "rule",
        rule: { effect: "allow", pattern: "bash(npm test*)", source: "project", file: "/p/.garuda/settings.json" },
      }),
    );
    log.record({ type: "answer", callId: "call-1", tool: "bash", readOnly: false, choice: "once" });
    log.close();

    const folder = dirname(log.file);
    expect(folder).toBe(auditFolder(paths.audit, project.path));
    expect(basename(folder)).toMatch(/^my_project-[A-Za-z0-9]+-[0-9a-f]{8}$/);
    expect(basename(log.file)).toMatch(new RegExp(`^2030-01-02T03-04-05-006Z-${process.pid}-[0-9a-f]{8}\\.jsonl$`));
    expect(statSync(log.file).mode & 0o777).toBe(0o600);
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    expect(statSync(paths.audit).mode & 0o777).toBe(0o700);

    const [request, decision, answer] = lines(log.file);
    expect(Object.keys(request ?? {})).toEqual([
      "seq",
      "time",
      "session",
      "type",
      "callId",
      "tool",
      "readOnly",
      "title",
      "target",
      "prev",
      "hash",
    ]);
    expect(request).toMatchObject({
      seq: 1,
      time: "2030-01-02T03:04:05.006Z",
      session: "s-1",
      type: "tool_request",
      target: "host: npm test",
      prev: GENESIS,
    });
    expect(decision).toMatchObject({
      seq: 2,
      type: "decision",
      outcome: "allow",
      by: "rule",
      rule: "bash(npm test*)",
      source: "project",
      file: "/p/.garuda/settings.json",
      prev: request?.hash,
    });
    expect(answer).toMatchObject({ seq: 3, type: "answer", choice: "once", prev: decision?.hash });
    const { hash, ...rest } = request as Record<string, unknown>;
    expect(hash).toBe(lineHash(GENESIS, rest));
  });

  test("a decision without a rule names its source as builtin, a deny its reason", () => {
    using home = tempDir();
    using project = tempDir();
    const file = writeLog(home.path, project.path, [
      decisionEvent(READ, { outcome: "deny", by: "sensitive", reason: "a key file" }),
    ]);
    expect(lines(file)[0]).toMatchObject({
      type: "decision",
      outcome: "deny",
      by: "sensitive",
      source: "builtin",
      reason: "a key file",
    });
  });

  test("the permission engine's audit events map to decision and answer lines", () => {
    using home = tempDir();
    using project = tempDir();
    const rule = {
      effect: "deny" as const,
      pattern: "bash(curl)",
      source: "managed-policy" as const,
      file: "/etc/garuda/policy.json",
    };
    const file = writeLog(home.path, project.path, [
      permissionAuditEvent({
        type: "decision",
        request: REQUEST,
        mode: "plan",
        decision: { outcome: "deny", by: "policy", reason: "no curl", rule },
      }),
      permissionAuditEvent({
        type: "answer",
        request: REQUEST,
        choice: "session",
        decision: { outcome: "allow", by: "user" },
        sessionRules: [{ effect: "allow", pattern: "bash(npm test)", source: "session" }],
      }),
    ]);
    const [decision, answer] = lines(file);
    expect(decision).toMatchObject({
      type: "decision",
      mode: "plan",
      outcome: "deny",
      by: "policy",
      rule: "bash(curl)",
      source: "managed-policy",
      file: "/etc/garuda/policy.json",
      reason: "no curl",
    });
    expect(answer).toMatchObject({
      type: "answer",
      callId: "call-1",
      choice: "session",
      sessionRules: ["bash(npm test)"],
    });
  });

  test("event fields never override the chain's own keys", () => {
    using home = tempDir();
    using project = tempDir();
    const sneaky = {
      type: "notice",
      text: "x",
      seq: 99,
      prev: "f".repeat(64),
      session: "other",
    } as unknown as AuditEvent;
    const file = writeLog(home.path, project.path, [sneaky]);
    expect(lines(file)[0]).toMatchObject({ seq: 1, prev: GENESIS, session: "s-1", text: "x" });
    expect(verifyAuditLog(file).ok).toBe(true);
  });

  test("no record, no file", () => {
    using home = tempDir();
    using project = tempDir();
    const log = openAuditLog({ auditDir: garudaPaths(home.path).audit, root: project.path, session: "s" });
    log.close();
    expect(() => readdirSync(garudaPaths(home.path).audit)).toThrow();
  });

  test("two logs of the same project go to two files in one folder", () => {
    using home = tempDir();
    using project = tempDir();
    const one = writeLog(home.path, project.path, FIVE);
    const two = writeLog(home.path, project.path, FIVE);
    expect(one).not.toBe(two);
    expect(dirname(one)).toBe(dirname(two));
    expect(verifyAuditLog(one).ok && verifyAuditLog(two).ok).toBe(true);
  });
});

describe("audit log: verify", () => {
  test("a clean log verifies", () => {
    using home = tempDir();
    using project = tempDir();
    const file = writeLog(home.path, project.path, FIVE);
    expect(verifyAuditLog(file)).toEqual({ ok: true, lines: 5 });
  });

  test("a changed line is found", () => {
    using home = tempDir();
    using project = tempDir();
    const file = writeLog(home.path, project.path, FIVE);
    rewrite(file, (all) => all.map((line, i) => (i === 1 ? line.replace('"allow"', '"deny"') : line)));
    expect(verifyAuditLog(file)).toMatchObject({ ok: false, problem: { line: 2, kind: "changed" } });
  });

  test("a changed line whose hash was recomputed is still found, through the next line", () => {
    using home = tempDir();
    using project = tempDir();
    const file = writeLog(home.path, project.path, FIVE);
    rewrite(file, (all) =>
      all.map((line, i) => {
        if (i !== 2) return line;
        const { hash: _old, ...rest } = JSON.parse(line);
        const forged = { ...rest, ok: false };
        return JSON.stringify({ ...forged, hash: lineHash(forged.prev, forged) });
      }),
    );
    expect(verifyAuditLog(file)).toMatchObject({ ok: false, problem: { line: 3, kind: "changed" } });
  });

  test("an inserted line is found (a copied line, and a forged line that fits its predecessor)", () => {
    using home = tempDir();
    using project = tempDir();
    const copied = writeLog(home.path, project.path, FIVE);
    rewrite(copied, (all) => [...all.slice(0, 3), all[1] as string, ...all.slice(3)]);
    expect(verifyAuditLog(copied)).toMatchObject({ ok: false, problem: { line: 4, kind: "inserted" } });

    const forged = writeLog(home.path, project.path, FIVE);
    rewrite(forged, (all) => {
      const before = JSON.parse(all[1] as string);
      const line = { seq: 3, time: before.time, session: "s-1", type: "notice", text: "forged", prev: before.hash };
      return [...all.slice(0, 2), JSON.stringify({ ...line, hash: lineHash(line.prev, line) }), ...all.slice(2)];
    });
    expect(verifyAuditLog(forged)).toMatchObject({ ok: false, problem: { line: 3, kind: "inserted" } });
  });

  test("a removed line is found, the first line too", () => {
    using home = tempDir();
    using project = tempDir();
    const middle = writeLog(home.path, project.path, FIVE);
    rewrite(middle, (all) => all.filter((_, i) => i !== 2));
    expect(verifyAuditLog(middle)).toMatchObject({ ok: false, problem: { line: 3, kind: "removed" } });

    const first = writeLog(home.path, project.path, FIVE);
    rewrite(first, (all) => all.slice(1));
    expect(verifyAuditLog(first)).toMatchObject({ ok: false, problem: { line: 1, kind: "removed" } });
  });

  test("a line that is not a log line is malformed", () => {
    using home = tempDir();
    using project = tempDir();
    const file = writeLog(home.path, project.path, FIVE);
    rewrite(file, (all) => [...all.slice(0, 2), "not json", ...all.slice(2)]);
    expect(verifyAuditLog(file)).toMatchObject({ ok: false, problem: { line: 3, kind: "malformed" } });
    const cut = writeLog(home.path, project.path, FIVE);
    writeFileSync(cut, readFileSync(cut, "utf8").slice(0, -10));
    expect(verifyAuditLog(cut)).toMatchObject({ ok: false, problem: { line: 5, kind: "malformed" } });
  });
});

describe("audit log: redaction", () => {
  test("a key from the list and common key shapes never reach the file", () => {
    using home = tempDir();
    using project = tempDir();
    const listed = "custom-provider-key-0123456789";
    const anthropic = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789";
    const github = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
    const aws = "AKIAIOSFODNN7EXAMPLE";
    const bearer = "Bearer eyJhbGciOiJIUzI1NiJ9.payload.sig";
    const pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----";
    const log = openAuditLog({
      auditDir: garudaPaths(home.path).audit,
      root: project.path,
      session: "s",
      secrets: [listed],
    });
    log.record({
      type: "tool_request",
      tool: "bash",
      readOnly: false,
      title: `$ curl -H 'x-api-key: ${listed}' -H 'Authorization: ${bearer}'`,
      target: `ANTHROPIC_API_KEY=${anthropic} gh auth ${github}`,
    });
    log.record({ type: "tool_result", tool: "read_file", readOnly: true, ok: true, summary: `aws ${aws}\n${pem}` });
    log.close();
    const text = readFileSync(log.file, "utf8");
    for (const secret of [listed, anthropic, "sk-ant-", github, aws, "eyJhbGciOiJIUzI1NiJ9", "MIIEowIBAAKCAQEA"])
      expect(text).not.toContain(secret);
    expect(text).toContain("Bearer [REDACTED]");
    expect(text).toContain("ANTHROPIC_API_KEY=[REDACTED]");
    // Redaction happens before hashing: the log still verifies.
    expect(verifyAuditLog(log.file).ok).toBe(true);
    // Negative control: the same text without redaction would hold them.
    using other = tempDir();
    const plain = openAuditLog({ auditDir: garudaPaths(other.path).audit, root: project.path, session: "s" });
    plain.record({ type: "notice", text: `key ${listed}` });
    plain.close();
    expect(readFileSync(plain.file, "utf8")).toContain(listed);
  });
});

describe("audit log: levels", () => {
  const events: AuditEvent[] = [
    requestEvent(READ),
    decisionEvent(READ, { outcome: "allow", by: "read_only" }),
    decisionEvent(READ, { outcome: "deny", by: "sensitive", reason: "secret" }),
    requestEvent(REQUEST),
    decisionEvent(REQUEST, { outcome: "allow", by: "sandbox" }),
    { type: "answer", callId: "call-1", tool: "bash", readOnly: false, choice: "deny" },
    {
      type: "hook",
      event: "preToolUse",
      tool: "bash",
      readOnly: false,
      command: "check",
      source: "user",
      outcome: "continue",
    },
    {
      type: "hook",
      event: "preToolUse",
      tool: "read_file",
      readOnly: true,
      command: "check",
      source: "user",
      outcome: "blocked",
    },
    { type: "sandbox", event: "network_blocked", denied: true, detail: "evil.com" },
    { type: "notice", text: "n" },
    { type: "stop", reason: "done" },
  ];
  const written = (level: "all" | "mutations" | "denials") => {
    using home = tempDir();
    using project = tempDir();
    const log = openAuditLog({ auditDir: garudaPaths(home.path).audit, root: project.path, session: "s", level });
    for (const event of events) log.record(event);
    log.close();
    expect(verifyAuditLog(log.file).ok).toBe(true);
    return lines(log.file).map((line) => {
      const outcome = line.outcome ? `:${line.outcome}` : "";
      const choice = line.choice ? `:${line.choice}` : "";
      return `${line.type}${outcome}${choice}${line.readOnly ? " (ro)" : ""}`;
    });
  };

  test("all keeps everything", () => {
    expect(written("all")).toHaveLength(events.length);
  });

  test("mutations drops read-only calls that were not refused", () => {
    expect(written("mutations")).toEqual([
      "decision:deny (ro)",
      "tool_request",
      "decision:allow",
      "answer:deny",
      "hook:continue",
      "hook:blocked (ro)",
      "sandbox",
      "notice",
      "stop",
    ]);
  });

  test("denials keeps refusals and stops only", () => {
    expect(written("denials")).toEqual(["decision:deny (ro)", "answer:deny", "hook:blocked (ro)", "sandbox", "stop"]);
  });
});

describe("audit log: write failures", () => {
  test("are reported through the callback, never thrown, and the log goes on when it can", () => {
    using home = tempDir();
    using project = tempDir();
    const auditDir = join(home.path, "audit");
    writeFileSync(auditDir, "a file where the folder should be");
    const errors: Error[] = [];
    const log = openAuditLog({ auditDir, root: project.path, session: "s", onError: (error) => errors.push(error) });
    expect(() => log.record({ type: "notice", text: "one" })).not.toThrow();
    expect(errors.map((error) => codeOf(error))).toEqual(["ENOTDIR"]);
    rmSync(auditDir);
    log.record({ type: "notice", text: "two" });
    log.close();
    expect(errors).toHaveLength(1);
    // The failed line took no place in the chain: the log starts at seq 1 and verifies.
    expect(lines(log.file)).toEqual([expect.objectContaining({ seq: 1, type: "notice", text: "two" })]);
    expect(verifyAuditLog(log.file).ok).toBe(true);
  });

  test("a file that cannot be created (a folder in the way) is reported", () => {
    using home = tempDir();
    using project = tempDir();
    const auditDir = join(home.path, "audit-is-a-file");
    writeFileSync(auditDir, "x");
    const errors: Error[] = [];
    const log = openAuditLog({ auditDir, root: project.path, session: "s", onError: (error) => errors.push(error) });
    log.record({ type: "notice", text: "one" });
    log.record({ type: "notice", text: "two" });
    expect(errors).toHaveLength(2);
    expect((errors[0] as NodeJS.ErrnoException).code).toBe("ENOTDIR");
  });
});
