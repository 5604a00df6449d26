// The launch step after bwrapArgv (src/sandbox/bwrapLaunch.ts), pinned whole: what enters the
// session's network or starts a bridge of its own, the proxy variables, the paths kept readable.
import { describe, expect, test } from "bun:test";
import { describeBwrapArgv } from "../../src/sandbox/bwrap.ts";
import { type BwrapLaunchInput, bwrapLaunch } from "../../src/sandbox/bwrapLaunch.ts";
import type { SandboxSpec } from "../../src/sandbox/types.ts";
import { fakeFs } from "../support/sandboxSupport.ts";

const fs = fakeFs({
  dirs: [
    "/home/ada/src/app",
    "/tmp/garuda-session-1",
    "/tmp/garuda-proxy-1",
    "/tmp/bun-1/bin",
    "/tmp/checkout/src",
    "/tmp/checkout/src/sandbox",
    "/tmp/fixture/lib",
  ],
  files: { "/tmp/garuda-proxy-1/proxy.sock": "", "/tmp/bun-1/bin/bun": "", "/tmp/fixture/lib/server.ts": "" },
});

const proxied: SandboxSpec["network"] = { mode: "proxy", socketPath: "/tmp/garuda-proxy-1/proxy.sock", token: "t0ken" };
const spec = (network: SandboxSpec["network"]): SandboxSpec => ({
  root: "/home/ada/src/app",
  home: "/home/ada",
  tmpDir: "/tmp/garuda-session-1",
  projectReadOnly: false,
  writePaths: [],
  protectedPaths: [],
  denyReadPaths: [],
  network,
});

const NSENTER = [
  "/usr/bin/nsenter",
  "--user=/proc/42/ns/user",
  "--net=/proc/42/ns/net",
  "--preserve-credentials",
  "--",
];

/** bwrap's arguments every sandbox has (bwrap.test.ts pins them). */
const EVERY_SANDBOX = new RegExp(
  "^--(new-session|die-with-parent|unshare-(user|pid|ipc|uts|cgroup-try)|disable-userns|cap-drop|dev |proc " +
    String.raw`|ro-bind \/ \/)`,
);

/** The program up to bwrap on one line, bwrap's arguments one per line, then the variables set. */
function show(overrides: Partial<BwrapLaunchInput>): string {
  const input: BwrapLaunchInput = {
    spec: spec(proxied),
    argv: ["/bin/bash", "-c", "npm test"],
    env: { PATH: "/usr/bin", HOME: "/home/ada" },
    cwd: "/home/ada/src/app",
    bwrap: "/usr/bin/bwrap",
    disableUserns: true,
    selfCommand: ["/tmp/bun-1/bin/bun", "/tmp/checkout/src/sandbox/bridgeMain.ts"],
    bridgePort: 3128,
    fs,
    ...overrides,
  };
  const { argv, env } = bwrapLaunch(input);
  const at = argv.indexOf(input.bwrap);
  const lines = [
    `${argv.slice(0, at + 1).join(" ")}`,
    describeBwrapArgv(argv.slice(at + 1)),
    ...Object.entries(env).map(([name, value]) => `${name}=${value}`),
  ];
  // only the lines that differ between cases: the mounts every sandbox has are bwrap.test.ts's
  return lines
    .join("\n")
    .split("\n")
    .filter((line) => !EVERY_SANDBOX.test(line))
    .join("\n");
}

describe("bwrapLaunch", () => {
  test(
    "joining the session's network: nsenter first, no network of its own, no " +
      "bridge, no socket; the proxy variables name the namespace's port",
    () => {
      expect(show({ join: NSENTER })).toMatchInlineSnapshot(`
      "/usr/bin/nsenter --user=/proc/42/ns/user --net=/proc/42/ns/net --preserve-credentials -- /usr/bin/bwrap
      --bind /tmp/garuda-session-1 /tmp
      --bind /tmp/garuda-session-1 /tmp/garuda-session-1
      --ro-bind /tmp/checkout/src /tmp/checkout/src
      --bind /home/ada/src/app /home/ada/src/app
      --ro-bind /tmp/bun-1/bin/bun /tmp/bun-1/bin/bun
      --tmpfs /home/ada/src/app/.garuda
      --remount-ro /home/ada/src/app/.garuda
      --tmpfs /home/ada/src/app/.git
      --remount-ro /home/ada/src/app/.git
      --setenv TMPDIR /tmp/garuda-session-1
      --chdir /home/ada/src/app
      -- ["/bin/bash","-c","npm test"]
      PATH=/usr/bin
      HOME=/home/ada
      HTTP_PROXY=http://garuda:t0ken@127.0.0.1:3128
      HTTPS_PROXY=http://garuda:t0ken@127.0.0.1:3128
      http_proxy=http://garuda:t0ken@127.0.0.1:3128
      https_proxy=http://garuda:t0ken@127.0.0.1:3128
      ALL_PROXY=http://garuda:t0ken@127.0.0.1:3128
      all_proxy=http://garuda:t0ken@127.0.0.1:3128
      NO_PROXY=localhost,127.0.0.1,::1
      no_proxy=localhost,127.0.0.1,::1
      NODE_USE_ENV_PROXY=1"
    `);
    },
  );

  test(
    "a network of its own (no shared one here): the bridge runs first inside, the " +
      "proxy's socket is bound in, Bun and the bridge's folder under /tmp stay " +
      "readable",
    () => {
      expect(show({})).toMatchInlineSnapshot(`
      "/usr/bin/bwrap
      --unshare-net
      --bind /tmp/garuda-session-1 /tmp
      --bind /tmp/garuda-session-1 /tmp/garuda-session-1
      --ro-bind /tmp/checkout/src /tmp/checkout/src
      --bind /home/ada/src/app /home/ada/src/app
      --ro-bind /tmp/bun-1/bin/bun /tmp/bun-1/bin/bun
      --tmpfs /home/ada/src/app/.garuda
      --remount-ro /home/ada/src/app/.garuda
      --tmpfs /home/ada/src/app/.git
      --remount-ro /home/ada/src/app/.git
      --bind /tmp/garuda-proxy-1/proxy.sock /tmp/garuda-proxy-1/proxy.sock
      --setenv TMPDIR /tmp/garuda-session-1
      --chdir /home/ada/src/app
      -- ["/tmp/bun-1/bin/bun","/tmp/checkout/src/sandbox/bridgeMain.ts","--socket","/tmp/garuda-proxy-1/proxy.sock","--port","3128","--","/bin/bash","-c","npm test"]
      PATH=/usr/bin
      HOME=/home/ada
      HTTP_PROXY=http://garuda:t0ken@127.0.0.1:3128
      HTTPS_PROXY=http://garuda:t0ken@127.0.0.1:3128
      http_proxy=http://garuda:t0ken@127.0.0.1:3128
      https_proxy=http://garuda:t0ken@127.0.0.1:3128
      ALL_PROXY=http://garuda:t0ken@127.0.0.1:3128
      all_proxy=http://garuda:t0ken@127.0.0.1:3128
      NO_PROXY=localhost,127.0.0.1,::1
      no_proxy=localhost,127.0.0.1,::1
      NODE_USE_ENV_PROXY=1"
    `);
    },
  );

  test(
    "no network: no proxy variables, no bridge; a request's program under /tmp is " +
      "readable as named, not its folder",
    () => {
      expect(
        show({ spec: spec({ mode: "none" }), readPaths: ["/tmp/fixture/lib/server.ts", "relative/ignored"] }),
      ).toMatchInlineSnapshot(`
      "/usr/bin/bwrap
      --unshare-net
      --bind /tmp/garuda-session-1 /tmp
      --bind /tmp/garuda-session-1 /tmp/garuda-session-1
      --ro-bind /tmp/checkout/src /tmp/checkout/src
      --bind /home/ada/src/app /home/ada/src/app
      --ro-bind /tmp/bun-1/bin/bun /tmp/bun-1/bin/bun
      --ro-bind /tmp/fixture/lib/server.ts /tmp/fixture/lib/server.ts
      --tmpfs /home/ada/src/app/.garuda
      --remount-ro /home/ada/src/app/.garuda
      --tmpfs /home/ada/src/app/.git
      --remount-ro /home/ada/src/app/.git
      --setenv TMPDIR /tmp/garuda-session-1
      --chdir /home/ada/src/app
      -- ["/bin/bash","-c","npm test"]
      PATH=/usr/bin
      HOME=/home/ada"
    `);
    },
  );
});
