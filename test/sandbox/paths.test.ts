import { describe, expect, test } from "bun:test";
import { resolveLoose, sandboxPaths } from "../../src/sandbox/paths.ts";
import { fakeFs, pathSpec } from "../support/sandboxSupport.ts";

const spec = pathSpec;

describe("sandboxPaths", () => {
  test(
    "no .git yet: .git is held as an empty read-only folder (no repository with " + "planted hooks); .garuda always is",
    () => {
      const paths = sandboxPaths(spec(), fakeFs({ dirs: ["/w/app", "/h"] }));
      expect(paths.writable).toEqual(["/w/app"]);
      expect(paths.protected).toEqual([
        { path: "/w/app/.garuda", dir: true },
        { path: "/w/app/.git", dir: true },
      ]);
    },
  );

  test(
    "a .git folder with linked worktrees and submodules: their redirect files, and " +
      "the submodules' hooks, are held; the folders (and a submodule's config, which " +
      "the git guard keeps) stay writable",
    () => {
      const fs = fakeFs({
        dirs: ["/w/app/.git/worktrees/wt", "/w/app/.git/modules/libs/core/hooks"],
        files: {
          "/w/app/.git/commondir": ".",
          "/w/app/.git/worktrees/wt/commondir": "../..",
          "/w/app/.git/worktrees/wt/gitdir": "/w/wt/.git",
          "/w/app/.git/modules/libs/core/HEAD": "ref: refs/heads/main",
          "/w/app/.git/modules/libs/core/config": "[core]",
        },
      });
      const paths = sandboxPaths(spec(), fs);
      expect(paths.protected.map((p) => p.path)).toEqual([
        "/w/app/.garuda",
        "/w/app/.git/commondir",
        "/w/app/.git/config",
        "/w/app/.git/hooks",
        "/w/app/.git/worktrees/wt/commondir",
        "/w/app/.git/worktrees/wt/gitdir",
        "/w/app/.git/modules/libs/core/hooks",
      ]);
      expect(paths.writable).toEqual(["/w/app"]);
    },
  );

  test("a .git folder: hooks (a folder) and config (a file) are held", () => {
    const paths = sandboxPaths(spec(), fakeFs({ dirs: ["/w/app/.git"] }));
    expect(paths.protected).toEqual([
      { path: "/w/app/.garuda", dir: true },
      { path: "/w/app/.git/config", dir: false },
      { path: "/w/app/.git/hooks", dir: true },
    ]);
  });

  test("a .git file without a readable gitdir is held itself", () => {
    const paths = sandboxPaths(spec(), fakeFs({ dirs: ["/w/app"], files: { "/w/app/.git": "garbage" } }));
    expect(paths.protected.map((p) => p.path)).toEqual(["/w/app/.garuda", "/w/app/.git"]);
    expect(paths.writable).toEqual(["/w/app"]);
  });

  test(
    "a .git file a command could have written, pointing anywhere but a worktree or " +
      "submodule folder, makes nothing writable",
    () => {
      for (const target of ["/h", "/h/other-project/.git", "/w/elsewhere"]) {
        const fs = fakeFs({
          dirs: ["/w/app", "/h/other-project/.git/hooks", "/w/elsewhere"],
          files: { "/w/app/.git": `gitdir: ${target}` },
        });
        const paths = sandboxPaths(spec(), fs);
        expect(paths.writable).toEqual(["/w/app"]);
        expect(paths.protected.map((p) => p.path)).toContain("/w/app/.git");
      }
      // Control: the same file pointing at a submodule's folder is honoured.
      const fs = fakeFs({
        dirs: ["/w/app", "/h/repo/.git/modules/app"],
        files: { "/w/app/.git": "gitdir: /h/repo/.git/modules/app" },
      });
      expect(sandboxPaths(spec(), fs).writable).toEqual(["/w/app", "/h/repo/.git/modules/app"]);
    },
  );

  test("a submodule's gitdir (no commondir) is writable, its hooks and config held", () => {
    const fs = fakeFs({
      dirs: ["/w/app/lib", "/w/app/.git/modules/lib/hooks"],
      files: { "/w/app/lib/.git": "gitdir: ../.git/modules/lib" },
    });
    const paths = sandboxPaths(spec({ root: "/w/app/lib" }), fs);
    expect(paths.writable).toEqual(["/w/app/lib", "/w/app/.git/modules/lib"]);
    expect(paths.protected.map((p) => p.path)).toContain("/w/app/.git/modules/lib/hooks");
    expect(paths.protected.map((p) => p.path)).toContain("/w/app/.git/modules/lib/config");
  });

  test("plan mode: neither the root nor its git folders are writable, so nothing there needs holding", () => {
    const paths = sandboxPaths(spec({ projectReadOnly: true }), fakeFs({ dirs: ["/w/app/.git", "/h/.npm"] }));
    // The package caches stay writable: npx, uv and the like write them on every run.
    expect(paths.writable).toEqual(["/h/.npm"]);
    expect(paths.protected).toEqual([]);
  });

  test("caches only when they exist; nested writable folders collapse into their parent", () => {
    const fs = fakeFs({ dirs: ["/w/app", "/h/.cache/uv", "/h/.cargo/registry", "/w/app/out"] });
    const paths = sandboxPaths(spec({ writePaths: ["/w/app/out"] }), fs);
    expect(paths.writable).toEqual(["/h/.cache", "/w/app", "/h/.cargo/registry"]);
  });

  test("deny-read paths are resolved against the root and include the defaults", () => {
    const paths = sandboxPaths(spec({ denyReadPaths: [".env", "/srv/keys"] }), fakeFs({ dirs: ["/w/app"] }));
    expect(paths.denyRead).toContain("/w/app/.env");
    expect(paths.denyRead).toContain("/srv/keys");
    expect(paths.denyRead).toContain("/h/.ssh");
    expect(paths.denyRead).toContain("/h/.garuda/credentials");
  });
});

describe("sandboxPaths: extra writable folders reached through a symlink a command could have made", () => {
  test(
    "a writePath in the project re-pointed at HOME is refused, whether written " +
      "absolute or relative (negative control: unchecked it resolves to HOME)",
    () => {
      const fs = fakeFs({ dirs: ["/w/app", "/h/docs"], links: { "/w/app/cache": "/h" } });
      for (const projectReadOnly of [false, true]) {
        for (const path of ["/w/app/cache", "cache", "/w/app/./cache"]) {
          const paths = sandboxPaths(spec({ projectReadOnly, writePaths: [path] }), fs);
          expect(paths.writable).not.toContain("/h");
          expect(paths.refused).toEqual([{ path, link: "/w/app/cache" }]);
        }
      }
      expect(resolveLoose("/w/app/cache", fs)).toBe("/h");
    },
  );

  test(
    "a link deeper down, a relative link, and one under another writable folder " +
      "(writePath, session tmp, package cache) are refused",
    () => {
      const fs = fakeFs({
        dirs: ["/w/app/vendor", "/data/shared", "/t", "/h/.cache", "/srv/x"],
        links: {
          "/w/app/vendor/deps": "../../../srv",
          "/data/shared/sub": "/srv",
          "/t/out": "/srv",
          "/h/.cache/pip": "/srv",
        },
      });
      const writePaths = ["/w/app/vendor/deps/x", "/data/shared", "/data/shared/sub/x", "/t/out/x", "/h/.cache/pip/x"];
      const paths = sandboxPaths(spec({ writePaths }), fs);
      expect(paths.refused.map((r) => r.link)).toEqual([
        "/w/app/vendor/deps",
        "/data/shared/sub",
        "/t/out",
        "/h/.cache/pip",
      ]);
      expect(paths.writable).toEqual(["/data/shared", "/h/.cache", "/w/app"]);
    },
  );

  test(
    "a link outside every writable folder that leads through one in the project is " + "caught at the project's link",
    () => {
      const fs = fakeFs({ dirs: ["/w/app", "/h"], links: { "/opt/shared": "/w/app/cache", "/w/app/cache": "/h" } });
      const paths = sandboxPaths(spec({ writePaths: ["/opt/shared"] }), fs);
      expect(paths.refused).toEqual([{ path: "/opt/shared", link: "/w/app/cache" }]);
      expect(paths.writable).toEqual(["/w/app"]);
    },
  );

  test(
    "links above the writable folders keep working: /home → /usr/home, a root that " + "is a link, ~ in a writePath",
    () => {
      const fs = fakeFs({
        dirs: ["/usr/home/ada/app/out", "/usr/home/ada/shared/x", "/usr/home/ada/.npm"],
        links: { "/home": "/usr/home", "/usr/home/ada/link-to-app": "app" },
      });
      const s = spec({
        root: "/home/ada/link-to-app",
        home: "/home/ada",
        projectReadOnly: true,
        writePaths: ["/home/ada/link-to-app/out", "~/shared/x", "out"],
      });
      const paths = sandboxPaths(s, fs);
      expect(paths.refused).toEqual([]);
      expect(paths.writable).toEqual(["/usr/home/ada/.npm", "/usr/home/ada/app/out", "/usr/home/ada/shared/x"]);
    },
  );

  test("a package cache that is a link: kept when HOME is not writable, refused when it is (a project at ~)", () => {
    const fs = fakeFs({ dirs: ["/w/app", "/data/cache", "/h/work"], links: { "/h/.cache": "/data/cache" } });
    expect(sandboxPaths(spec(), fs).writable).toEqual(["/data/cache", "/w/app"]);
    const atHome = sandboxPaths(spec({ root: "/h" }), fs);
    expect(atHome.writable).toEqual(["/h/work"]);
    expect(atHome.refused).toEqual([{ path: "/h/.cache", link: "/h/.cache" }]);
  });
});

describe("resolveLoose", () => {
  test("resolves the existing part of a path, keeps the rest", () => {
    const fs = fakeFs({ dirs: ["/private/tmp/x"], links: { "/tmp": "/private/tmp" } });
    expect(resolveLoose("/tmp/x/y/z", fs)).toBe("/private/tmp/x/y/z");
    expect(resolveLoose("/tmp/x/../x", fs)).toBe("/private/tmp/x");
  });
});
