// The change log's answers: the paths recorded since a token, or "all" whenever it cannot vouch
// for the whole time since (another log's token, a loss, the tree not wholly watched, too many paths).
import { describe, expect, test } from "bun:test";
import { createChangeLog } from "../../../src/sandbox/gitGuard/changeLog.ts";

describe("change log", () => {
  test("lists the paths recorded after a token, each once, and none before it", () => {
    const log = createChangeLog();
    log.record("/p/old");
    const first = log.answer(undefined, true);
    expect(first.paths).toBe("all"); // no token: nothing to count from
    log.record("/p/a");
    log.record("/p/b");
    log.record("/p/a");
    const second = log.answer(first.token, true);
    expect(second.paths).toEqual(["/p/a", "/p/b"]);
    expect(log.answer(second.token, true).paths).toEqual([]);
    // An older token still answers for its own time.
    expect(log.answer(first.token, true).paths).toEqual(["/p/a", "/p/b"]);
  });

  test("a loss, a tree not wholly watched, another log's token or a bad one: all", () => {
    const log = createChangeLog();
    const token = log.answer(undefined, true).token;
    log.record("/p/a");
    expect(log.answer(token, false).paths).toBe("all");
    const whileUncovered = log.answer(undefined, false).token;
    expect(log.answer(whileUncovered, true).paths).toBe("all");
    expect(log.answer(token, true).paths).toEqual(["/p/a"]); // (negative control for the loss below)
    log.lose();
    expect(log.answer(token, true).paths).toBe("all");
    expect(createChangeLog().answer(token, true).paths).toBe("all");
    for (const bad of ["", "x", `${token.split(":")[0]}:0:x`]) expect(log.answer(bad, true).paths).toBe("all");
  });

  test("past its size it answers all, then counts again from the next token", () => {
    const log = createChangeLog(3);
    const token = log.answer(undefined, true).token;
    for (const name of ["a", "b", "c"]) log.record(`/p/${name}`);
    expect(log.answer(token, true).paths).toHaveLength(3);
    log.record("/p/d");
    const after = log.answer(token, true);
    expect(after.paths).toBe("all");
    log.record("/p/e");
    expect(log.answer(after.token, true).paths).toEqual(["/p/e"]);
  });

  test("past the characters it keeps (long paths) it answers all as well", () => {
    const log = createChangeLog(100, 30);
    const token = log.answer(undefined, true).token;
    log.record(`/p/${"a".repeat(20)}`);
    log.record(`/p/${"a".repeat(20)}`); // the same path again costs nothing
    expect(log.answer(token, true).paths).toHaveLength(1);
    log.record(`/p/${"b".repeat(20)}`);
    expect(log.answer(token, true).paths).toBe("all");
  });
});
