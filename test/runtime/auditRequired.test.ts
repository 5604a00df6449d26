// `audit.enabled: true` in the team policy makes the audit log required: when it cannot be
// written, every tool call is refused (nothing runs that the log does not hold). Without it, a
// failed write is a notice and the session goes on.
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { fake } from "../../src/model/fake.ts";
import { answering, notices, type Place, place, results, session } from "../support/extensionHarness.ts";

/** A file where the audit folder should be: every write of the log fails. */
function breakAuditFolder(where: Place): void {
  mkdirSync(dirname(where.paths.audit), { recursive: true });
  writeFileSync(where.paths.audit, "not a folder\n");
}

async function readTurn(where: Place) {
  await using s = await session(where, [fake.toolCall("read_file", { path: "a.txt" }), fake.text("done")], answering());
  const { events } = await s.prompt("read a.txt");
  return { result: results(events)[0], notices: notices(events).join("\n") };
}

describe("a required audit log", () => {
  test("required (the team policy's audit.enabled) and unwritable: the call is refused, saying why", async () => {
    using where = place();
    where.project("a.txt", "alpha\n");
    where.user("no-managed-policy.json", JSON.stringify({ audit: { enabled: true } }));
    breakAuditFolder(where);
    const { result, notices: said } = await readTurn(where);
    expect(result?.status).toBe("denied");
    expect(result?.output).toContain("The team policy requires the audit log, and writing it failed");
    expect(result?.output).not.toContain("alpha");
    expect(said).toContain("every tool call is refused until it can be written");
  });

  test("not required: the same failure is a notice and the call runs (negative control)", async () => {
    using where = place();
    where.project("a.txt", "alpha\n");
    breakAuditFolder(where);
    const { result, notices: said } = await readTurn(where);
    expect(result?.status).toBe("completed");
    expect(result?.output).toContain("alpha");
    expect(said).toContain("Writing the audit log failed");
    expect(said).not.toContain("refused");
  });

  test("required and writable: calls run", async () => {
    using where = place();
    where.project("a.txt", "alpha\n");
    where.user("no-managed-policy.json", JSON.stringify({ audit: { enabled: true, level: "all" } }));
    const { result } = await readTurn(where);
    expect(result?.output).toContain("alpha");
  });
});
