// The home folder's rules as sandboxPaths applies them to every writable folder (homeHolds.ts),
// over a fake tree: what an extra folder in the home keeps read-only, what links into a writable
// folder hold, and what stays writable (the package caches, a session root's own PATH folder).
import { describe, expect, test } from "bun:test";
import { sandboxPaths } from "../../src/sandbox/paths.ts";
import type { SandboxSpec } from "../../src/sandbox/types.ts";
import { fakeFs, pathSpec } from "../support/sandboxSupport.ts";

const spec = pathSpec;

const held = (s: SandboxSpec, fs: ReturnType<typeof fakeFs>) =>
  sandboxPaths(s, fs)
    .protected.map((p) => p.path)
    .filter((path) => path.startsWith("/h"));

describe("the home's rules in extra folders", () => {
  const tree = fakeFs({
    dirs: [
      "/w/app/.git",
      "/h/.config/systemd",
      "/h/.local/bin",
      "/h/.cache",
      "/h/go/bin",
      "/h/go/src",
      "/h/dots/env.d",
      "/h/web/bin",
    ],
    links: { "/h/.config/environment.d": "/h/dots/env.d", "/h/.xprofile": "/h/dots/xprofile", "/h/.cache2": "/h/dots" },
    files: { "/h/dots/xprofile": "# x\n" },
  });

  test("an extra folder in the home keeps ~/go/bin and the PATH folders inside it read-only; the session's root keeps its own writable", () => {
    const s = spec({ root: "/h/web", extraRoots: ["/h/go"], pathFolders: ["/h/web/bin", "/h/go/bin"] });
    expect(held(s, tree)).toContain("/h/go/bin");
    expect(held(s, tree)).not.toContain("/h/web/bin");
    expect(sandboxPaths(s, tree).writable).toEqual(expect.arrayContaining(["/h/go", "/h/web"]));
  });

  test("what the home's own entries link to is held where a folder is writable: a dotfiles repository as an extra folder", () => {
    const paths = held(spec({ extraRoots: ["/h/dots"] }), tree);
    expect(paths).toEqual(expect.arrayContaining(["/h/dots/env.d", "/h/dots/xprofile", "/h/dots"]));
  });

  test("an extra folder that is one of the home's own is held whole; in plan mode nothing is added", () => {
    expect(held(spec({ extraRoots: ["/h/.config"] }), tree)).toContain("/h/.config");
    expect(held(spec({ extraRoots: ["/h/.config"], projectReadOnly: true }), tree)).toEqual([]);
  });

  test("negative control: without extra folders a session elsewhere holds nothing in the home, and the package caches stay writable", () => {
    expect(held(spec(), tree)).toEqual([]);
    expect(sandboxPaths(spec({ extraRoots: ["/h/go"] }), tree).writable).toContain("/h/.cache");
  });
});
