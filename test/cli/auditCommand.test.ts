// `garuda audit verify`, run from source with a temporary HOME: a whole log passes, a changed
// line is named, and with no file it checks the logs of the project in the current folder.
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { garudaPaths } from "../../src/config/paths.ts";
import { openAuditLog } from "../../src/store/audit.ts";
import { tempDir } from "../support/tempDir.ts";

const entry = join(import.meta.dir, "../../src/cli/index.ts");

function garuda(args: string[], home: string, cwd: string) {
  const result = Bun.spawnSync([process.execPath, entry, ...args], {
    env: { PATH: process.env.PATH ?? "", HOME: home },
    cwd,
  });
  return { code: result.exitCode, stdout: result.stdout.toString(), stderr: result.stderr.toString() };
}

/** A real log of three lines for `root`, as a session writes it. */
function writeLog(home: string, root: string): string {
  const log = openAuditLog({ auditDir: garudaPaths(home).audit, root, session: "s1" });
  log.record({ type: "notice", text: "one" });
  log.record({ type: "notice", text: "two" });
  log.record({ type: "stop", reason: "done" });
  log.close();
  return log.file;
}

describe("garuda audit verify", () => {
  test("no file: this folder's logs; a whole log passes (exit 0), a changed line fails (exit 1)", () => {
    using home = tempDir();
    using root = tempDir();
    const none = garuda(["audit", "verify"], home.path, root.path);
    expect(none.code).toBe(0);
    expect(none.stdout).toContain("No audit logs for this folder");

    const file = writeLog(home.path, root.path);
    const whole = garuda(["audit", "verify"], home.path, root.path);
    expect(whole.code).toBe(0);
    expect(whole.stdout).toContain(`ok      ${file} (3 lines)`);

    writeFileSync(file, readFileSync(file, "utf8").replace('"text":"two"', '"text":"TWO"'));
    const changed = garuda(["audit", "verify", file], home.path, root.path);
    expect(changed.code).toBe(1);
    expect(changed.stdout).toContain(`BROKEN  ${file}: line 2 does not match its hash`);
    expect(changed.stdout).toContain("1 of 1 log failed the check");
  });

  test("a wrong action is exit 2 with the usage; a missing file is an error line, exit 1", () => {
    using home = tempDir();
    const wrong = garuda(["audit", "check"], home.path, home.path);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain("Use: garuda audit verify [FILE…]");
    const missing = garuda(["audit", "verify", join(home.path, "nope.jsonl")], home.path, home.path);
    expect(missing.code).toBe(1);
    expect(missing.stdout).toContain("ERROR   ");
  });
});
