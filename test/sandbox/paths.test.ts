import { describe, expect, test } from "bun:test";
import { resolveLoose, sandboxPaths } from "../../src/sandbox/paths.ts";
import type { SandboxSpec } from "../../src/sandbox/types.ts";
import { fakeFs } from "./support.ts";

const spec = (overrides: Partial<SandboxSpec> = {}): SandboxSpec => ({
  root: "/w/app",
  home: "/h",
  tmpDir: "/t",
  projectReadOnly: false,
  writePaths: [],
  protectedPaths: [],
  denyReadPaths: [],
  network: { mode: "none" },
  ...overrides,
});

describe("sandboxPaths", () => {
  test("no .git yet: nothing in .git is held, so `git init` can run in the sandbox; .garuda always is", () => {
    const paths = sandboxPaths(spec(), fakeFs({ dirs: ["/w/app", "/h"] }));
    expect(paths.writable).toEqual(["/w/app"]);
    expect(paths.protected).toEqual([{ path: "/w/app/.garuda", dir: true }]);
  });

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

  test("a submodule's gitdir (no commondir) is writable, its hooks and config held", () => {
    const fs = fakeFs({ dirs: ["/w/app/lib", "/w/app/.git/modules/lib/hooks"], files: { "/w/app/lib/.git": "gitdir: ../.git/modules/lib" } });
    const paths = sandboxPaths(spec({ root: "/w/app/lib" }), fs);
    expect(paths.writable).toEqual(["/w/app/lib", "/w/app/.git/modules/lib"]);
    expect(paths.protected.map((p) => p.path)).toContain("/w/app/.git/modules/lib/hooks");
    expect(paths.protected.map((p) => p.path)).toContain("/w/app/.git/modules/lib/config");
  });

  test("plan mode: neither the root nor its git folders are writable, so nothing there needs holding", () => {
    const paths = sandboxPaths(spec({ projectReadOnly: true }), fakeFs({ dirs: ["/w/app/.git", "/h/.npm"] }));
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

describe("resolveLoose", () => {
  test("resolves the existing part of a path, keeps the rest", () => {
    const fs = fakeFs({ dirs: ["/private/tmp/x"], links: { "/tmp": "/private/tmp" } });
    expect(resolveLoose("/tmp/x/y/z", fs)).toBe("/private/tmp/x/y/z");
    expect(resolveLoose("/tmp/x/../x", fs)).toBe("/private/tmp/x");
  });
});
