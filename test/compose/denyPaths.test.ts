import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expandDenyPaths } from "../../src/compose/denyPaths.ts";
import { tempDir } from "../support/tempDir.ts";

describe("policy denyPaths as sandbox paths", () => {
  test("plain patterns become their path; wildcards are matched now", () => {
    using root = tempDir();
    mkdirSync(join(root.path, "secrets"), { recursive: true });
    mkdirSync(join(root.path, "a/b"), { recursive: true });
    writeFileSync(join(root.path, "a/b/db.sqlite"), "");
    writeFileSync(join(root.path, "top.sqlite"), "");
    const { paths, notices } = expandDenyPaths(
      ["secrets/**", "~/.config/acme", "/etc/acme/key", "*.sqlite"],
      root.path,
      "/home/u",
    );
    expect(paths.sort()).toEqual(
      [
        join(root.path, "secrets"),
        "/home/u/.config/acme",
        "/etc/acme/key",
        join(root.path, "a/b/db.sqlite"),
        join(root.path, "top.sqlite"),
      ].sort(),
    );
    expect(notices).toEqual([]);
  });
});
