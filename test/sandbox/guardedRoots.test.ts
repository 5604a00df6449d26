// Which project folders a sandboxed command's git guards cover (guardedRoots.ts): the root and
// each extra root, each once, a folder inside another left to the outer one's guard.
import { describe, expect, test } from "bun:test";
import { guardedRoots, outermostFolders } from "../../src/sandbox/guardedRoots.ts";
import type { SandboxSpec } from "../../src/sandbox/types.ts";
import { pathSpec } from "../support/sandboxSupport.ts";

const spec = (overrides: Partial<SandboxSpec> = {}): SandboxSpec =>
  pathSpec({ root: "/work/app", home: "/home/me", tmpDir: "/tmp/s", ...overrides });

describe("guardedRoots", () => {
  test("the root and each extra root get a guard, each as the root of its spec", () => {
    const base = spec({ extraRoots: ["/work/lib", "/data/shared"] });
    const specs = guardedRoots(base);
    expect(specs.map((s) => s.root)).toEqual(["/work/app", "/work/lib", "/data/shared"]);
    expect(specs[0]).toBe(base);
  });

  test(
    "writePaths keep naming the same folders once the root changes (relative to the " +
      "session's root, ~ to the home)",
    () => {
      const specs = guardedRoots(spec({ extraRoots: ["/work/lib"], writePaths: ["build", "~/cache", "/opt/x"] }));
      expect(specs[1]?.writePaths).toEqual(["/work/app/build", "/home/me/cache", "/opt/x"]);
    },
  );

  test("a folder inside another is left to the outer one's guard; duplicates are guarded once", () => {
    expect(guardedRoots(spec({ root: "/work/app/web", extraRoots: ["/work/app"] })).map((s) => s.root)).toEqual([
      "/work/app",
    ]);
    expect(outermostFolders(["/a", "/b", "/a", "/b/c", "/ab"])).toEqual(["/a", "/b", "/ab"]);
  });

  test("without extra roots: the spec itself", () => {
    const base = spec({});
    expect(guardedRoots(base)).toEqual([base]);
  });
});
