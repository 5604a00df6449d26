// What Garuda keeps on disk stays bounded whatever it is given: an audit line of a 50 MB command is
// cut (and still redacted where it is cut), a planted deep audit line is reported, not a crash,
// and a session record too large for a line is written with its strings cut, signatures whole.
import { describe, expect, test } from "bun:test";
import { appendFileSync, readFileSync } from "node:fs";
import { garudaPaths } from "../../src/config/paths.ts";
import { MAX_AUDIT_CHARS, openAuditLog, verifyAuditLog } from "../../src/store/audit.ts";
import { createRedactor, REDACTED, redactCut, redactValue } from "../../src/store/redact.ts";
import { createSessionStore, MAX_RECORD_BYTES, readSession } from "../../src/store/sessionFile.ts";
import { tempDir } from "../support/tempDir.ts";

const KEY = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789";

function nested(depth: number): unknown {
  let value: unknown = "leaf";
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

describe("bounds of what is kept on disk", () => {
  test("redactCut: the kept part is redacted, a secret across the cut too; the marker counts the rest", () => {
    const redact = createRedactor([KEY]);
    const text = `${"a".repeat(990)} ${KEY} ${"b".repeat(100_000)}`;
    const cut = redactCut(text, redact, 1_000);
    expect(cut).not.toContain("sk-ant-api03-abcdefgh");
    expect(cut).toStartWith(`${"a".repeat(990)} [REDAC`);
    expect(cut).toEndWith(`[… ${(text.length - 1_000).toLocaleString("en-US")} more characters left out]`);
    expect(redactCut("short Bearer abcdefghijkl", redact, 1_000)).toBe(`short Bearer ${REDACTED}`);
    // A value 100,000 levels deep is redacted without overflowing the stack (deeper parts left out).
    expect(() => redactValue(nested(100_000), redact)).not.toThrow();
  });

  test(
    "an audit line of a 50 MB command keeps its start and length; a planted deep " + "line is malformed, not a crash",
    () => {
      using home = tempDir();
      using root = tempDir();
      const log = openAuditLog({
        auditDir: garudaPaths(home.path).audit,
        root: root.path,
        session: "s",
        secrets: [KEY],
      });
      const command = `echo ${KEY} ${"c".repeat(50 * 1024 * 1024)}`;
      log.record({
        type: "tool_request",
        tool: "bash",
        readOnly: false,
        title: "$ echo",
        target: `sandboxed: ${command}`,
      });
      log.close();
      const text = readFileSync(log.file, "utf8");
      expect(text.length).toBeLessThan(MAX_AUDIT_CHARS + 1_000);
      expect(text).not.toContain(KEY);
      expect(text).toContain("more characters left out");
      expect(verifyAuditLog(log.file).ok).toBe(true);
      appendFileSync(
        log.file,
        `${JSON.stringify({ seq: 2 }).slice(0, -1)},"x":${"[".repeat(100_000)}${"]".repeat(100_000)}}\n`,
      );
      expect(verifyAuditLog(log.file)).toEqual({
        ok: false,
        lines: 2,
        problem: { line: 2, kind: "malformed", detail: "line 2 is nested deeper than 16 levels" },
      });
    },
  );

  test(
    "a session record too large for a line is written with its strings cut, the " +
      "opaque fields whole, and reads back",
    () => {
      using sessions = tempDir();
      const store = createSessionStore({ sessionsDir: sessions.path });
      const journal = store.create({ root: sessions.path, version: "t", model: "m", mode: "build" });
      const signature = "s".repeat(1_000);
      journal.append({
        type: "assistant",
        step: 1,
        stopReason: "end_turn",
        content: [
          { type: "thinking", thinking: "hm", signature },
          { type: "text", text: "t".repeat(MAX_RECORD_BYTES + 10) },
        ],
        usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheCreationTokens: 0 },
      });
      journal.close();
      const file = journal.file as string;
      expect(
        Math.max(
          ...readFileSync(file, "utf8")
            .split("\n")
            .map((line) => Buffer.byteLength(line)),
        ),
      ).toBeLessThanOrEqual(MAX_RECORD_BYTES);
      const data = readSession(file);
      expect(data.damaged).toBeUndefined();
      const [thinking, answer] = data.messages[0]?.content ?? [];
      expect(thinking).toEqual({ type: "thinking", thinking: "hm", signature });
      expect(answer?.type === "text" && answer.text).toEndWith("more characters left out]");
    },
  );
});
