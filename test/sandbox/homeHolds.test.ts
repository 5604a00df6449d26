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

  test(
    "an extra folder in the home keeps ~/go/bin and the PATH folders inside it " +
      "read-only; the session's root keeps its own writable",
    () => {
      const s = spec({ root: "/h/web", extraRoots: ["/h/go"], pathFolders: ["/h/web/bin", "/h/go/bin"] });
      expect(held(s, tree)).toContain("/h/go/bin");
      expect(held(s, tree)).not.toContain("/h/web/bin");
      expect(sandboxPaths(s, tree).writable).toEqual(expect.arrayContaining(["/h/go", "/h/web"]));
    },
  );

  test(
    "what the home's own entries link to is held where a folder is writable: a " +
      "dotfiles repository as an extra folder",
    () => {
      const paths = held(spec({ extraRoots: ["/h/dots"] }), tree);
      expect(paths).toEqual(expect.arrayContaining(["/h/dots/env.d", "/h/dots/xprofile", "/h/dots"]));
    },
  );

  test(
    "an extra folder that is one of the home's own is held whole; in plan mode " + "nothing more than the caches hold",
    () => {
      expect(held(spec({ extraRoots: ["/h/.config"] }), tree)).toContain("/h/.config");
      expect(held(spec({ extraRoots: ["/h/.config"], projectReadOnly: true }), tree)).toEqual([
        "/h/.cache/node/corepack",
      ]);
    },
  );

  test(
    "negative control: without extra folders a session elsewhere holds nothing in " +
      "the home but the programs in caches, and the package caches stay writable",
    () => {
      expect(held(spec(), tree)).toEqual(["/h/.cache/node/corepack"]);
      expect(sandboxPaths(spec({ extraRoots: ["/h/go"] }), tree).writable).toContain("/h/.cache");
    },
  );
});

describe("the places the desktop and the shell run from, under a writePath", () => {
  const tree = fakeFs({ dirs: ["/w/app", "/h/.config/systemd", "/h/.config/nvim"] });
  const runPlaces = ["/h/.config/autostart", "/h/.config/environment.d", "/h/.config/fish", "/h/.config/systemd"];

  test(
    "a writePath over ~/.config keeps systemd, autostart, environment.d and fish " + "read-only, missing ones too",
    () => {
      const paths = sandboxPaths(spec({ writePaths: ["~/.config"] }), tree);
      expect(paths.writable).toContain("/h/.config");
      expect(paths.protected.filter((p) => p.path.startsWith("/h/.config")).map((p) => p.path)).toEqual(
        expect.arrayContaining(runPlaces),
      );
      expect(paths.protected.map((p) => p.path)).not.toContain("/h/.config/nvim");
    },
  );

  test("negative control: a writePath elsewhere holds none of them", () => {
    const paths = sandboxPaths(spec({ writePaths: ["~/.config/nvim"] }), tree);
    expect(paths.protected.filter((p) => p.path.startsWith("/h/.config"))).toEqual([]);
  });
});

describe("programs the host runs from package caches", () => {
  const tree = fakeFs({
    dirs: [
      "/w/app",
      "/h/.cache/pip",
      "/h/.cache/node/corepack/v1/pnpm",
      "/h/.local/share/pnpm/global/5",
      "/h/.local/share/uv/tools",
    ],
  });

  test(
    "corepack's package managers and pnpm's global packages stay read-only in a " + "writable cache, also off PATH",
    () => {
      const paths = sandboxPaths(spec(), tree);
      expect(paths.writable).toEqual(expect.arrayContaining(["/h/.cache", "/h/.local/share/pnpm"]));
      expect(paths.protected.map((p) => p.path)).toEqual(
        expect.arrayContaining(["/h/.cache/node/corepack", "/h/.local/share/pnpm/global"]),
      );
    },
  );

  test("uv's data folder (installed tools, Pythons, tokens) is no package cache: not writable", () => {
    const writable = sandboxPaths(spec(), tree).writable;
    expect(writable.some((path) => path.startsWith("/h/.local/share/uv"))).toBe(false);
    expect(writable).toContain("/h/.cache"); // uv's cache, ~/.cache/uv, is
  });
});
