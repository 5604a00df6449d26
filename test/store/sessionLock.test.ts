// The session lock: one holder at a time, in this process and across processes; a holder that
// is killed with SIGKILL leaves nothing held; shared handles keep it until the last is released.
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { lockFileOf, lockSession, removeLockFile, SessionBusyError } from "../../src/store/sessionLock.ts";
import { tempDir } from "../support/tempDir.ts";

const HOLDER = `
import { lockSession } from ${JSON.stringify(join(import.meta.dir, "../../src/store/sessionLock.ts"))};
const lock = lockSession(process.argv[2]);
console.log("held");
setInterval(() => lock.file, 1000);
`;

/** Another process that takes the lock and keeps it until it is killed. */
async function holder(dir: string, file: string) {
  const script = join(dir, "holder.ts");
  writeFileSync(script, HOLDER);
  const proc = Bun.spawn([process.execPath, script, file], { stdout: "pipe", stderr: "inherit" });
  const reader = proc.stdout.getReader();
  const { value } = await reader.read();
  expect(new TextDecoder().decode(value)).toContain("held");
  return proc;
}

describe("the session lock", () => {
  test("one holder in a process; released, it can be taken again; shared handles keep it to the last", () => {
    using dir = tempDir("garuda-lock-");
    const file = join(dir.path, "20260101-000000-aaaaaaaa.jsonl");
    const lock = lockSession(file);
    expect(existsSync(lockFileOf(file))).toBe(true);
    expect(() => lockSession(file)).toThrow(SessionBusyError);
    const shared = lock.share();
    lock.release();
    lock.release();
    expect(() => lockSession(file)).toThrow(SessionBusyError);
    shared.release();
    const again = lockSession(file);
    again.release();
    // Nothing but the empty lock file (no journal beside it).
    expect(readdirSync(dir.path)).toEqual(["20260101-000000-aaaaaaaa.lock"]);
    removeLockFile(file);
    expect(readdirSync(dir.path)).toEqual([]);
  });

  test("another process's lock is refused with a message for the user; killed with " +
    "SIGKILL, it holds nothing", async () => {
    using dir = tempDir("garuda-lock-");
    const file = join(dir.path, "20260101-000000-bbbbbbbb.jsonl");
    const proc = await holder(dir.path, file);
    try {
      let refused: unknown;
      try {
        lockSession(file);
      } catch (error) {
        refused = error;
      }
      expect(refused).toBeInstanceOf(SessionBusyError);
      expect((refused as Error).message).toContain("Another Garuda is using this session now");
      expect((refused as Error).message).toContain("Close it there first, or start a new session");
    } finally {
      proc.kill("SIGKILL");
      await proc.exited;
    }
    const lock = lockSession(file);
    lock.release();
  }, 20_000);
});
