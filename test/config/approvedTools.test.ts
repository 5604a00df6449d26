// ~/.garuda/mcp-approved.json: kept per project root and server, written 0600 and whole; a broken
// file is no list (never an error: it only explains a question).
import { describe, expect, test } from "bun:test";
import { mkdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ApprovedToolLists } from "../../src/config/approvedTools.ts";
import { tempDir } from "../support/tempDir.ts";

describe("ApprovedToolLists", () => {
  test("a list set for a root and server comes back; other roots and servers are kept apart", () => {
    using home = tempDir();
    using a = tempDir();
    using b = tempDir();
    const file = join(home.path, ".garuda", "mcp-approved.json");
    const lists = new ApprovedToolLists(file);
    lists.set(a.path, "github", { get_issue: "1111", list_prs: "2222" });
    lists.set(b.path, "github", { other: "3333" });
    lists.set(a.path, "docs", { search: "4444" });
    expect(new ApprovedToolLists(file).get(a.path, "github")).toEqual({ get_issue: "1111", list_prs: "2222" });
    expect(lists.get(b.path, "github")).toEqual({ other: "3333" });
    expect(lists.get(a.path, "docs")).toEqual({ search: "4444" });
    expect(lists.get(a.path, "nope")).toBeUndefined();
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  test("a missing or broken file is no list", () => {
    using home = tempDir();
    const file = join(home.path, "mcp-approved.json");
    expect(new ApprovedToolLists(file).get(home.path, "x")).toBeUndefined();
    mkdirSync(home.path, { recursive: true });
    writeFileSync(file, "{ not json");
    expect(new ApprovedToolLists(file).get(home.path, "x")).toBeUndefined();
  });
});
