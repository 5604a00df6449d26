import { describe, expect, test } from "bun:test";
import { SANDBOX_EXEC, seatbeltArgv, seatbeltParams, seatbeltProfile } from "../../src/sandbox/seatbelt.ts";
import type { SandboxSpec } from "../../src/sandbox/types.ts";
import { fakeFs } from "../support/sandboxSupport.ts";

// macOS spellings: /tmp and /var are symlinks into /private, and Seatbelt matches real paths.
const mac = fakeFs({
  dirs: [
    "/Users/ada/Library/Caches",
    "/Users/ada/.npm",
    "/Users/ada/.ssh",
    "/Users/ada/src/app/.git/hooks",
    "/private/var/folders/x/T/garuda-session-1",
  ],
  files: { "/Users/ada/src/app/.git/config": "[core]", "/Users/ada/.netrc": "" },
  links: { "/var": "/private/var", "/tmp": "/private/tmp" },
});

const spec = (overrides: Partial<SandboxSpec> = {}): SandboxSpec => ({
  root: "/Users/ada/src/app",
  home: "/Users/ada",
  tmpDir: "/var/folders/x/T/garuda-session-1",
  projectReadOnly: false,
  writePaths: [],
  protectedPaths: [],
  denyReadPaths: [],
  network: { mode: "proxy", socketPath: "/var/folders/x/T/garuda-proxy-1/proxy.sock", token: "t0ken", tcpPort: 49152 },
  ...overrides,
});

/** The argv with the profile replaced by a marker, one argument per line. */
function showArgv(argv: string[]): string {
  return argv.map((arg, i) => (argv[i - 1] === "-p" ? "<profile>" : arg)).join("\n");
}

describe("seatbeltArgv", () => {
  test("paths reach the profile only as -D parameters, all real paths", () => {
    const argv = seatbeltArgv(spec(), ["/bin/bash", "-c", "npm test"], { fs: mac });
    expect(argv[0]).toBe(SANDBOX_EXEC);
    expect(showArgv(argv)).toMatchInlineSnapshot(`
      "/usr/bin/sandbox-exec
      -p
      <profile>
      -D
      WRITE_0=/private/var/folders/x/T/garuda-session-1
      -D
      WRITE_1=/Users/ada/.npm
      -D
      WRITE_2=/Users/ada/Library/Caches
      -D
      WRITE_3=/Users/ada/src/app
      -D
      PROTECT_0=/Users/ada/src/app/.garuda
      -D
      PROTECT_1=/Users/ada/src/app/.git/config
      -D
      PROTECT_2=/Users/ada/src/app/.git/hooks
      -D
      PIN_0=/Users/ada/src/app/.git
      -D
      DENY_0=/run/docker.sock
      -D
      DENY_1=/Users/ada/.aws
      -D
      DENY_2=/Users/ada/.azure
      -D
      DENY_3=/Users/ada/.claude.json
      -D
      DENY_4=/Users/ada/.docker
      -D
      DENY_5=/Users/ada/.git-credentials
      -D
      DENY_6=/Users/ada/.gnupg
      -D
      DENY_7=/Users/ada/.kube
      -D
      DENY_8=/Users/ada/.netrc
      -D
      DENY_9=/Users/ada/.npmrc
      -D
      DENY_10=/Users/ada/.pgpass
      -D
      DENY_11=/Users/ada/.pypirc
      -D
      DENY_12=/Users/ada/.ssh
      -D
      DENY_13=/Users/ada/.vault-token
      -D
      DENY_14=/Users/ada/.yarnrc.yml
      -D
      DENY_15=/Users/ada/.cargo/credentials
      -D
      DENY_16=/Users/ada/.cargo/credentials.toml
      -D
      DENY_17=/Users/ada/.claude/.credentials.json
      -D
      DENY_18=/Users/ada/.config/gcloud
      -D
      DENY_19=/Users/ada/.config/gh
      -D
      DENY_20=/Users/ada/.config/github-copilot
      -D
      DENY_21=/Users/ada/.config/hub
      -D
      DENY_22=/Users/ada/.garuda/audit
      -D
      DENY_23=/Users/ada/.garuda/credentials
      -D
      DENY_24=/Users/ada/.garuda/hooks.json
      -D
      DENY_25=/Users/ada/.garuda/mcp-auth.json
      -D
      DENY_26=/Users/ada/.garuda/mcp.json
      -D
      DENY_27=/Users/ada/.garuda/sessions
      -D
      DENY_28=/Users/ada/.garuda/snapshots
      -D
      DENY_29=/Users/ada/.gem/credentials
      -D
      DENY_30=/Users/ada/.gradle/gradle.properties
      -D
      DENY_31=/Users/ada/.m2/settings.xml
      -D
      DENY_32=/Users/ada/.terraform.d/credentials.tfrc.json
      -D
      DENY_33=/Users/ada/Library/Keychains
      -D
      DENY_34=/private/var/run/docker.sock
      -D
      DENY_35=/Users/ada/.config/composer/auth.json
      -D
      DENY_36=/Users/ada/.config/git/credentials
      -D
      DENY_37=/Users/ada/.config/rclone/rclone.conf
      -D
      DENY_38=/Users/ada/.local/share/uv/credentials
      --
      /bin/bash
      -c
      npm test"
    `);
  });

  test(
    "the profile: deny by default, reads minus secrets, writes to the writable " +
      "folders minus protected paths, network only to the proxy port",
    () => {
      expect(seatbeltProfile(seatbeltParams(spec(), mac))).toMatchInlineSnapshot(`
      "(version 1)
      (deny default)
      (allow process-exec)
      (allow process-fork)
      (allow signal (target same-sandbox))
      (allow process-info* (target same-sandbox))
      (allow user-preference-read)
      (allow mach-host*)
      (allow sysctl-read)
      (allow sysctl-write (sysctl-name "kern.grade_cputype"))
      (allow iokit-open (iokit-registry-entry-class "RootDomainUserClient"))
      (allow mach-lookup
        (global-name "com.apple.system.opendirectoryd.libinfo")
        (global-name "com.apple.PowerManagement.control")
        (global-name "com.apple.trustd.agent")
        (global-name "com.apple.SecurityServer")
        (global-name "com.apple.system.logger")
        (global-name "com.apple.logd"))
      (allow ipc-posix-sem)
      (allow ipc-posix-shm)
      (allow pseudo-tty)
      (allow file-read* file-write* file-ioctl (literal "/dev/ptmx"))
      (allow file-read* file-write* (require-all (regex #"^/dev/ttys[0-9]+") (extension "com.apple.sandbox.pty")))
      (allow file-write-data (require-all (regex #"^/dev/ttys[0-9]+") (vnode-type CHARACTER-DEVICE)))
      (allow file-ioctl (regex #"^/dev/ttys[0-9]+"))
      (allow file-write-data
        (require-all (literal "/dev/null") (vnode-type CHARACTER-DEVICE))
        (require-all (literal "/dev/zero") (vnode-type CHARACTER-DEVICE))
        (literal "/dev/dtracehelper")
        (subpath "/dev/fd"))
      ; reads: everything but the unreadable paths
      (allow file-read*)
      (deny file-read*
        (subpath (param "DENY_0"))
        (subpath (param "DENY_1"))
        (subpath (param "DENY_2"))
        (subpath (param "DENY_3"))
        (subpath (param "DENY_4"))
        (subpath (param "DENY_5"))
        (subpath (param "DENY_6"))
        (subpath (param "DENY_7"))
        (subpath (param "DENY_8"))
        (subpath (param "DENY_9"))
        (subpath (param "DENY_10"))
        (subpath (param "DENY_11"))
        (subpath (param "DENY_12"))
        (subpath (param "DENY_13"))
        (subpath (param "DENY_14"))
        (subpath (param "DENY_15"))
        (subpath (param "DENY_16"))
        (subpath (param "DENY_17"))
        (subpath (param "DENY_18"))
        (subpath (param "DENY_19"))
        (subpath (param "DENY_20"))
        (subpath (param "DENY_21"))
        (subpath (param "DENY_22"))
        (subpath (param "DENY_23"))
        (subpath (param "DENY_24"))
        (subpath (param "DENY_25"))
        (subpath (param "DENY_26"))
        (subpath (param "DENY_27"))
        (subpath (param "DENY_28"))
        (subpath (param "DENY_29"))
        (subpath (param "DENY_30"))
        (subpath (param "DENY_31"))
        (subpath (param "DENY_32"))
        (subpath (param "DENY_33"))
        (subpath (param "DENY_34"))
        (subpath (param "DENY_35"))
        (subpath (param "DENY_36"))
        (subpath (param "DENY_37"))
        (subpath (param "DENY_38")))
      ; writes: the writable folders, minus the protected paths (last rule wins)
      (allow file-write*
        (subpath (param "WRITE_0"))
        (subpath (param "WRITE_1"))
        (subpath (param "WRITE_2"))
        (subpath (param "WRITE_3")))
      (deny file-write*
        (literal (param "PROTECT_0")) (subpath (param "PROTECT_0"))
        (literal (param "PROTECT_1")) (subpath (param "PROTECT_1"))
        (literal (param "PROTECT_2")) (subpath (param "PROTECT_2")))
      (deny file-write-unlink
        (literal (param "PIN_0")))
      ; network: only Garuda's egress proxy
      (allow network-outbound (remote ip "localhost:49152"))"
    `);
    },
  );

  test("plan mode without network: the root is not writable and no network rule is emitted", () => {
    const params = seatbeltParams(spec({ projectReadOnly: true, network: { mode: "none" } }), mac);
    expect(params.write).toEqual([
      "/private/var/folders/x/T/garuda-session-1",
      "/Users/ada/.npm",
      "/Users/ada/Library/Caches",
    ]);
    expect(params.proxyPort).toBeUndefined();
    const profile = seatbeltProfile(params);
    expect(profile).toContain("; network: none");
    expect(profile).not.toContain("network-outbound");
  });

  test(
    "a writePath a command re-pointed at HOME is not writable (negative control: it " + "is while it is a folder)",
    () => {
      const cache = "/Users/ada/src/app/cache";
      const s = spec({ projectReadOnly: true, writePaths: [cache] });
      const asFolder = fakeFs({ dirs: ["/Users/ada/src/app", cache] });
      expect(seatbeltParams(s, asFolder).write).toContain(cache);
      const asLink = fakeFs({ dirs: ["/Users/ada/src/app"], links: { [cache]: "/Users/ada" } });
      expect(seatbeltParams(s, asLink).write).toEqual(["/var/folders/x/T/garuda-session-1"]);
    },
  );

  test("a path cannot inject SBPL: the profile text is the same whatever the paths say", () => {
    const evil = '/Users/ada/src/app")) (allow default) ;';
    const fs = fakeFs({ dirs: [evil, "/Users/ada/.npm"] });
    const plain = fakeFs({ dirs: ["/Users/ada/src/app", "/Users/ada/.npm"] });
    const withEvil = seatbeltArgv(spec({ root: evil }), ["true"], { fs });
    const withPlain = seatbeltArgv(spec(), ["true"], { fs: plain });
    expect(withEvil[2]).toBe(withPlain[2] as string);
    expect(withEvil[2]).not.toContain("allow default");
    expect(withEvil.filter((arg) => arg.endsWith(`=${evil}`))).toEqual([`WRITE_2=${evil}`]);
  });

  test("a proxied sandbox needs the proxy's TCP port, and a bad port is refused", () => {
    expect(() =>
      seatbeltArgv(spec({ network: { mode: "proxy", socketPath: "/s", token: "t" } }), ["true"], { fs: mac }),
    ).toThrow(/tcpPort/);
    expect(() => seatbeltProfile({ write: [], protect: [], pin: [], deny: [], proxyPort: 70000 })).toThrow(
      /invalid proxy port/,
    );
  });
});
