// /proc/<pid>/stat in one place: the fields are counted from the last ")", since a command name
// may hold spaces and parentheses.
import { describe, expect, test } from "bun:test";
import { parseProcStat, readProcStat } from "../../src/sandbox/procStat.ts";

describe("procStat", () => {
  test("a name with spaces and parentheses does not shift the fields", () => {
    const fields = ["S", "10", "20", "30", "34816", "40", ...Array.from({ length: 13 }, (_, i) => String(i)), "98765"];
    const stat = parseProcStat(`123 (a) b (c)) ${fields.join(" ")} 0 0`);
    expect(stat).toEqual({
      state: "S",
      ppid: 10,
      pgrp: 20,
      session: 30,
      ttyNr: "34816",
      tpgid: "40",
      start: "98765",
    });
  });

  test.skipIf(process.platform !== "linux")("this process's own, and none for a pid that is not there", () => {
    const own = readProcStat(process.pid);
    expect(own?.ppid).toBe(process.ppid);
    expect(own?.start).toMatch(/^\d+$/);
    expect(readProcStat(2 ** 30)).toBeUndefined();
  });
});
