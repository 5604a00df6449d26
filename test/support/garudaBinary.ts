// The compiled garuda the process tests spawn: dist/garuda, built once when it is missing or older
// than src/ (as `bun run demo` does) and then shared by every test file of the run and of later
// runs. Test files may run at the same time (`bun test --parallel`), so one builds while the others
// wait: the builder holds dist/.garuda-build.lock (its pid), builds into a file of its own and
// renames it over dist/garuda, so no test ever starts a half-written binary. Should two build at once
// (a lock taken over from a dead builder), each renames a whole binary: wasted time, never a wrong file.
import { linkSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DIST, ENTRY, buildBinary, staleReason } from "../../scripts/buildTargets.ts";

export const GARUDA_BINARY = join(DIST, "garuda");
const LOCK = join(DIST, ".garuda-build.lock");

/** Whether this process now holds the lock; a lock whose process is gone is removed for the next try. */
function takeLock(): boolean {
  // Written whole first, then linked into place (link fails when the lock exists): no one ever reads a lock without its
  // pid.
  const mine = `${LOCK}.${process.pid}`;
  writeFileSync(mine, String(process.pid));
  try {
    linkSync(mine, LOCK);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  } finally {
    rmSync(mine, { force: true });
  }
  const holder = Number(readLockHolder());
  if (!(Number.isInteger(holder) && holder > 0 && isAlive(holder))) rmSync(LOCK, { force: true });
  return false;
}

function readLockHolder(): string {
  try {
    return readFileSync(LOCK, "utf8");
  } catch {
    return "";
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** dist/garuda, current with src/: built here, or by the test file that took the lock first. */
export async function garudaBinary(): Promise<string> {
  mkdirSync(DIST, { recursive: true });
  const deadline = Date.now() + 120_000;
  while (staleReason(GARUDA_BINARY)) {
    if (!takeLock()) {
      if (Date.now() > deadline) throw new Error(`${LOCK} was held for two minutes; remove it if no build runs`);
      await Bun.sleep(100);
      continue;
    }
    const part = join(DIST, `.garuda-${process.pid}`);
    try {
      // Checked again under the lock: another file may have built it since.
      if (staleReason(GARUDA_BINARY)) {
        await buildBinary({ entry: ENTRY, outfile: part });
        renameSync(part, GARUDA_BINARY);
      }
    } finally {
      rmSync(part, { force: true }); // what a failed build left
      rmSync(LOCK, { force: true });
    }
  }
  return GARUDA_BINARY;
}
