import { describe, expect, test } from "bun:test";
import {
  type ProcessTable,
  descendants,
  groupMembers,
  processTable,
  stillRunning,
} from "../../src/sandbox/processTree.ts";

const entry = (ppid: number, pgid: number, start = "1", zombie = false) => ({ ppid, pgid, start, zombie });

// 10 ─┬─ 11 ── 13
//     └─ 12 (its own group: setsid)      20 (unrelated, same group as 10 after its parent died)
const table: ProcessTable = new Map([
  [10, entry(1, 10)],
  [11, entry(10, 10)],
  [12, entry(10, 12)],
  [13, entry(11, 10)],
  [20, entry(1, 10)],
  [30, entry(1, 30)],
]);

describe("processTree", () => {
  test("descendants: the whole tree below a pid, whatever its groups", () => {
    expect(descendants(10, table).sort()).toEqual([11, 12, 13]);
    expect(descendants(13, table)).toEqual([]);
  });

  test("group members: orphans still in the group are found", () => {
    expect(groupMembers(10, table).sort()).toEqual([10, 11, 13, 20]);
  });

  test("stillRunning: same pid and start time, and not a zombie", () => {
    const now: ProcessTable = new Map([
      [11, entry(10, 10)],
      [12, entry(10, 12, "2")], // a new process that got the pid
      [13, entry(11, 10, "1", true)],
    ]);
    expect(stillRunning(table, [10, 11, 12, 13], now)).toEqual([11]);
  });

  test("the live table has this process and its parent", () => {
    const live = processTable();
    expect(live.get(process.pid)?.ppid).toBe(process.ppid);
  });
});
