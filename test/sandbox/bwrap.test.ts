import { describe, expect, test } from "bun:test";
import { bwrapArgv, describeBwrapArgv } from "../../src/sandbox/bwrap.ts";
import type { SandboxSpec } from "../../src/sandbox/types.ts";
import { fakeFs } from "../support/sandboxSupport.ts";

// One user's machine: HOME with caches and credentials, a project with a git repository.
const machine = {
  dirs: [
    "/home/ada/.cache",
    "/home/ada/.npm",
    "/home/ada/.m2/repository",
    "/home/ada/.ssh",
    "/home/ada/.aws",
    "/home/ada/.config/gh",
    "/home/ada/src/app/.git/hooks",
    "/home/ada/src/app/src",
    "/tmp/garuda-session-1",
    "/tmp/garuda-proxy-1",
    "/usr/bin",
  ],
  files: {
    "/home/ada/.netrc": "machine x",
    "/home/ada/.bashrc": "# rc",
    "/home/ada/.garuda/credentials": "{}",
    "/home/ada/src/app/.git/config": "[core]",
    "/tmp/garuda-proxy-1/proxy.sock": "",
    "/var/run/docker.sock": "",
  },
};

const spec = (overrides: Partial<SandboxSpec> = {}): SandboxSpec => ({
  root: "/home/ada/src/app",
  home: "/home/ada",
  tmpDir: "/tmp/garuda-session-1",
  projectReadOnly: false,
  writePaths: [],
  protectedPaths: [],
  denyReadPaths: [],
  network: { mode: "none" },
  ...overrides,
});

const show = (s: SandboxSpec, options: Parameters<typeof bwrapArgv>[2] = {}, fs = fakeFs(machine)) =>
  describeBwrapArgv(bwrapArgv(s, ["/bin/bash", "-c", "npm test"], { fs, disableUserns: true, ...options }));

describe("bwrapArgv", () => {
  test(
    "build mode behind the proxy: root, tmp and existing caches writable; " +
      ".git/hooks, .git/config and a missing .garuda held read-only; credentials " +
      "hidden",
    () => {
      const network = { mode: "proxy" as const, socketPath: "/tmp/garuda-proxy-1/proxy.sock", token: "t0ken" };
      expect(show(spec({ network }))).toMatchInlineSnapshot(`
      "--new-session
      --die-with-parent
      --unshare-user
      --disable-userns
      --cap-drop ALL
      --unshare-pid
      --unshare-ipc
      --unshare-uts
      --unshare-cgroup-try
      --unshare-net
      --ro-bind / /
      --dev /dev
      --proc /proc
      --bind /tmp/garuda-session-1 /tmp
      --bind /tmp/garuda-session-1 /tmp/garuda-session-1
      --bind /home/ada/.cache /home/ada/.cache
      --bind /home/ada/.npm /home/ada/.npm
      --bind /home/ada/.m2/repository /home/ada/.m2/repository
      --bind /home/ada/src/app /home/ada/src/app
      --bind /home/ada/src/app/.git /home/ada/src/app/.git
      --tmpfs /home/ada/.cache/node
      --remount-ro /home/ada/.cache/node
      --tmpfs /home/ada/src/app/.garuda
      --remount-ro /home/ada/src/app/.garuda
      --ro-bind /home/ada/src/app/.git/config /home/ada/src/app/.git/config
      --ro-bind /home/ada/src/app/.git/hooks /home/ada/src/app/.git/hooks
      --tmpfs /home/ada/.aws
      --remount-ro /home/ada/.aws
      --ro-bind /dev/null /home/ada/.netrc
      --tmpfs /home/ada/.ssh
      --remount-ro /home/ada/.ssh
      --ro-bind /dev/null /var/run/docker.sock
      --tmpfs /home/ada/.config/gh
      --remount-ro /home/ada/.config/gh
      --ro-bind /dev/null /home/ada/.garuda/credentials
      --bind /tmp/garuda-proxy-1/proxy.sock /tmp/garuda-proxy-1/proxy.sock
      --setenv TMPDIR /tmp/garuda-session-1
      --chdir /home/ada/src/app
      -- ["/bin/bash","-c","npm test"]"
    `);
    },
  );

  test("plan mode: the project is read-only too (no writable binds for it), no network", () => {
    expect(show(spec({ projectReadOnly: true }))).toMatchInlineSnapshot(`
      "--new-session
      --die-with-parent
      --unshare-user
      --disable-userns
      --cap-drop ALL
      --unshare-pid
      --unshare-ipc
      --unshare-uts
      --unshare-cgroup-try
      --unshare-net
      --ro-bind / /
      --dev /dev
      --proc /proc
      --bind /tmp/garuda-session-1 /tmp
      --bind /tmp/garuda-session-1 /tmp/garuda-session-1
      --bind /home/ada/.cache /home/ada/.cache
      --bind /home/ada/.npm /home/ada/.npm
      --bind /home/ada/.m2/repository /home/ada/.m2/repository
      --tmpfs /home/ada/.cache/node
      --remount-ro /home/ada/.cache/node
      --tmpfs /home/ada/.aws
      --remount-ro /home/ada/.aws
      --ro-bind /dev/null /home/ada/.netrc
      --tmpfs /home/ada/.ssh
      --remount-ro /home/ada/.ssh
      --ro-bind /dev/null /var/run/docker.sock
      --tmpfs /home/ada/.config/gh
      --remount-ro /home/ada/.config/gh
      --ro-bind /dev/null /home/ada/.garuda/credentials
      --setenv TMPDIR /tmp/garuda-session-1
      --chdir /home/ada/src/app
      -- ["/bin/bash","-c","npm test"]"
    `);
  });

  test(
    "a project at HOME: only its plain folders (and the caches) are writable; the " +
      "home itself, its dotfiles and .git stay read-only",
    () => {
      expect(show(spec({ root: "/home/ada" }))).toMatchInlineSnapshot(`
      "--new-session
      --die-with-parent
      --unshare-user
      --disable-userns
      --cap-drop ALL
      --unshare-pid
      --unshare-ipc
      --unshare-uts
      --unshare-cgroup-try
      --unshare-net
      --ro-bind / /
      --dev /dev
      --proc /proc
      --bind /tmp/garuda-session-1 /tmp
      --bind /tmp/garuda-session-1 /tmp/garuda-session-1
      --bind /home/ada/.cache /home/ada/.cache
      --bind /home/ada/.npm /home/ada/.npm
      --bind /home/ada/src /home/ada/src
      --bind /home/ada/.m2/repository /home/ada/.m2/repository
      --tmpfs /home/ada/.cache/node
      --remount-ro /home/ada/.cache/node
      --tmpfs /home/ada/.aws
      --remount-ro /home/ada/.aws
      --ro-bind /dev/null /home/ada/.netrc
      --tmpfs /home/ada/.ssh
      --remount-ro /home/ada/.ssh
      --ro-bind /dev/null /var/run/docker.sock
      --tmpfs /home/ada/.config/gh
      --remount-ro /home/ada/.config/gh
      --ro-bind /dev/null /home/ada/.garuda/credentials
      --setenv TMPDIR /tmp/garuda-session-1
      --chdir /home/ada
      -- ["/bin/bash","-c","npm test"]"
    `);
    },
  );

  test("a linked worktree: its git folders become writable except hooks and config; the .git file is held", () => {
    const fs = fakeFs({
      dirs: ["/home/ada/src/main/.git/hooks", "/home/ada/src/main/.git/worktrees/wt", "/home/ada/src/wt"],
      files: {
        "/home/ada/src/wt/.git": "gitdir: /home/ada/src/main/.git/worktrees/wt\n",
        "/home/ada/src/main/.git/worktrees/wt/commondir": "../..\n",
        "/home/ada/src/main/.git/config": "[core]",
      },
    });
    expect(show(spec({ root: "/home/ada/src/wt" }), {}, fs)).toMatchInlineSnapshot(`
      "--new-session
      --die-with-parent
      --unshare-user
      --disable-userns
      --cap-drop ALL
      --unshare-pid
      --unshare-ipc
      --unshare-uts
      --unshare-cgroup-try
      --unshare-net
      --ro-bind / /
      --dev /dev
      --proc /proc
      --bind /tmp/garuda-session-1 /tmp
      --bind /tmp/garuda-session-1 /tmp/garuda-session-1
      --bind /home/ada/src/wt /home/ada/src/wt
      --bind /home/ada/src/main/.git /home/ada/src/main/.git
      --bind /home/ada/src/main/.git/worktrees /home/ada/src/main/.git/worktrees
      --bind /home/ada/src/main/.git/worktrees/wt /home/ada/src/main/.git/worktrees/wt
      --tmpfs /home/ada/src/wt/.garuda
      --remount-ro /home/ada/src/wt/.garuda
      --ro-bind /home/ada/src/wt/.git /home/ada/src/wt/.git
      --ro-bind /home/ada/src/main/.git/config /home/ada/src/main/.git/config
      --ro-bind /home/ada/src/main/.git/hooks /home/ada/src/main/.git/hooks
      --ro-bind /home/ada/src/main/.git/worktrees/wt/commondir /home/ada/src/main/.git/worktrees/wt/commondir
      --ro-bind /dev/null /home/ada/src/main/.git/worktrees/wt/config.worktree
      --setenv TMPDIR /tmp/garuda-session-1
      --chdir /home/ada/src/wt
      -- ["/bin/bash","-c","npm test"]"
    `);
  });

  test("project and HOME under the host's /tmp (hidden by the session's /tmp) are bound back", () => {
    const fs = fakeFs({
      dirs: ["/tmp/p/.git", "/tmp/h/.npm", "/tmp/h/.ssh", "/tmp/s", "/opt/garuda"],
      files: { "/opt/garuda/garuda": "" },
    });
    const s = spec({ root: "/tmp/p", home: "/tmp/h", tmpDir: "/tmp/s", projectReadOnly: true });
    expect(show(s, { readPaths: ["/opt/garuda/garuda"] }, fs)).toMatchInlineSnapshot(`
      "--new-session
      --die-with-parent
      --unshare-user
      --disable-userns
      --cap-drop ALL
      --unshare-pid
      --unshare-ipc
      --unshare-uts
      --unshare-cgroup-try
      --unshare-net
      --ro-bind / /
      --dev /dev
      --proc /proc
      --bind /tmp/s /tmp
      --bind /tmp/s /tmp/s
      --ro-bind /tmp/h /tmp/h
      --ro-bind /tmp/p /tmp/p
      --bind /tmp/h/.npm /tmp/h/.npm
      --tmpfs /tmp/h/.ssh
      --remount-ro /tmp/h/.ssh
      --setenv TMPDIR /tmp/s
      --chdir /tmp/p
      -- ["/bin/bash","-c","npm test"]"
    `);
  });

  test("settings' writePaths, protectedPaths and denyReadPaths come on top of the defaults", () => {
    const fs = fakeFs({ ...machine, dirs: [...machine.dirs, "/data/cache", "/home/ada/src/app/secrets"] });
    const s = spec({
      writePaths: ["/data/cache", "/not/there"],
      protectedPaths: ["Makefile", "ci/"],
      denyReadPaths: ["secrets"],
    });
    const lines = show(s, {}, fs).split("\n");
    expect(lines).toContain("--bind /data/cache /data/cache");
    expect(lines.some((line) => line.includes("/not/there"))).toBe(false);
    expect(lines).toContain("--ro-bind /dev/null /home/ada/src/app/Makefile");
    expect(lines).toContain("--tmpfs /home/ada/src/app/ci");
    expect(lines).toContain("--tmpfs /home/ada/src/app/secrets");
  });

  test(
    "a writePath a command re-pointed at HOME is not bound (negative control: the " +
      "same spec binds it while it is a folder)",
    () => {
      const cache = "/home/ada/src/app/vendor/cache";
      const s = spec({ projectReadOnly: true, writePaths: [cache] });
      const asFolder = show(s, {}, fakeFs({ ...machine, dirs: [...machine.dirs, cache] })).split("\n");
      expect(asFolder).toContain(`--bind ${cache} ${cache}`);
      const asLink = show(s, {}, fakeFs({ ...machine, links: { [cache]: "/home/ada" } })).split("\n");
      expect(asLink.filter((line) => line.startsWith("--bind "))).toEqual([
        "--bind /tmp/garuda-session-1 /tmp",
        "--bind /tmp/garuda-session-1 /tmp/garuda-session-1",
        "--bind /home/ada/.cache /home/ada/.cache",
        "--bind /home/ada/.npm /home/ada/.npm",
        "--bind /home/ada/.m2/repository /home/ada/.m2/repository",
      ]);
    },
  );

  test("a protected path under a missing folder is held at the first missing folder", () => {
    const lines = show(spec({ protectedPaths: [".vscode/tasks.json"] })).split("\n");
    expect(lines).toContain("--tmpfs /home/ada/src/app/.vscode");
    expect(lines).toContain("--remount-ro /home/ada/src/app/.vscode");
  });

  test(
    "no secret is an argument (every local user can read arguments): only TMPDIR is " +
      "set there, and the command comes last",
    () => {
      const network = { mode: "proxy" as const, socketPath: "/tmp/garuda-proxy-1/proxy.sock", token: "t0ken" };
      const args = bwrapArgv(spec({ network }), ["/bin/bash", "-c", "echo $HOME"], { fs: fakeFs(machine) });
      expect(args.filter((arg) => arg === "--setenv")).toHaveLength(1);
      expect(args).not.toContain("--clearenv");
      expect(args.join("\0")).not.toContain("t0ken");
      expect(args.slice(-9)).toEqual([
        "--setenv",
        "TMPDIR",
        "/tmp/garuda-session-1",
        "--chdir",
        "/home/ada/src/app",
        "--",
        "/bin/bash",
        "-c",
        "echo $HOME",
      ]);
    },
  );

  test("without --disable-userns support (bwrap < 0.8) the flag is left out", () => {
    const args = bwrapArgv(spec(), ["true"], { fs: fakeFs(machine), disableUserns: false });
    expect(args).not.toContain("--disable-userns");
    expect(args.slice(0, 6)).toEqual([
      "--new-session",
      "--die-with-parent",
      "--unshare-user",
      "--cap-drop",
      "ALL",
      "--unshare-pid",
    ]);
  });
});
