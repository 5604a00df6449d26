import { describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { diagnoseBwrap, findBwrap, installCommand, missingBwrap, probeSandbox } from "../../src/sandbox/probe.ts";
import { tempDir } from "../support/tempDir.ts";
import { describeSandbox, machineSandbox } from "../support/sandboxSupport.ts";

const osRelease = (id: string, like = "") => `NAME="X"\nID=${id}\n${like ? `ID_LIKE="${like}"\n` : ""}`;

describe("installCommand", () => {
  test.each([
    [osRelease("ubuntu", "debian"), "sudo apt-get install bubblewrap"],
    [osRelease("debian"), "sudo apt-get install bubblewrap"],
    [osRelease("linuxmint", "ubuntu debian"), "sudo apt-get install bubblewrap"],
    [osRelease('"fedora"'), "sudo dnf install bubblewrap"],
    [osRelease("rocky", "rhel centos fedora"), "sudo dnf install bubblewrap"],
    [osRelease("arch"), "sudo pacman -S bubblewrap"],
    [osRelease("alpine"), "sudo apk add bubblewrap"],
    [osRelease("opensuse-tumbleweed", "opensuse suse"), "sudo zypper install bubblewrap"],
    [undefined, "install the bubblewrap package with your distribution's package manager"],
  ])("%p → %s", (release, command) => {
    expect(installCommand(release)).toBe(command);
  });

  test("the missing-bwrap fix names the command", () => {
    expect(missingBwrap({ osRelease: osRelease("ubuntu") }).fix).toBe(
      "sudo apt-get install bubblewrap, then restart Garuda",
    );
  });
});

describe("diagnoseBwrap", () => {
  const uidMap = "bwrap: setting up uid map: Permission denied\n";

  test("Ubuntu 24.04's AppArmor restriction: an AppArmor profile for this bwrap, or the sysctl", () => {
    const { reason, fix } = diagnoseBwrap(uidMap, { apparmorRestrict: "1" }, "/usr/bin/bwrap");
    expect(reason).toContain("kernel.apparmor_restrict_unprivileged_userns=1");
    expect(reason).toContain("setting up uid map: Permission denied");
    expect(fix).toContain("profile bwrap /usr/bin/bwrap flags=(unconfined) {\n  userns,");
    expect(fix).toContain("sudo apparmor_parser -r /etc/apparmor.d/bwrap");
    expect(fix).toContain("sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0");
  });

  test("the other switches and containers", () => {
    expect(diagnoseBwrap(uidMap, { usernsClone: "0" }, "/usr/bin/bwrap").fix).toContain(
      "sudo sysctl -w kernel.unprivileged_userns_clone=1",
    );
    expect(diagnoseBwrap(uidMap, { maxUserNamespaces: "0" }, "/usr/bin/bwrap").fix).toContain(
      "sudo sysctl -w user.max_user_namespaces=15000",
    );
    expect(diagnoseBwrap(uidMap, { inContainer: true }, "/usr/bin/bwrap").reason).toContain("container");
  });

  test("anything else: bwrap's own words and a command to try", () => {
    const { reason, fix } = diagnoseBwrap(
      "bwrap: Can't mount proc on /newroot/proc: Operation not permitted",
      { apparmorRestrict: "0" },
      "/usr/local/bin/bwrap",
    );
    expect(reason).toBe(
      "bubblewrap failed its trial run (bwrap: Can't mount proc on /newroot/proc: Operation not permitted)",
    );
    expect(fix).toContain("/usr/local/bin/bwrap --unshare-user");
  });
});

describe("findBwrap", () => {
  test("never from inside the project or a relative PATH entry", () => {
    using dir = tempDir();
    const inRoot = join(dir.path, "project", "bin");
    const outside = join(dir.path, "tools");
    for (const folder of [inRoot, outside]) {
      mkdirSync(folder, { recursive: true });
      writeFileSync(join(folder, "bwrap"), "#!/bin/sh\n");
      chmodSync(join(folder, "bwrap"), 0o755);
    }
    const root = join(dir.path, "project");
    expect(findBwrap(`.:${inRoot}`, root)).toBeUndefined();
    expect(findBwrap(`.:${inRoot}:${outside}`, root)).toBe(join(outside, "bwrap"));
    // negative control: without the project rule the planted one would win
    expect(findBwrap(`${inRoot}:${outside}`, undefined)).toBe(join(inRoot, "bwrap"));
  });
});

describe("probeSandbox", () => {
  test("no bwrap on PATH: unavailable, with the install command", async () => {
    using dir = tempDir();
    const probe = await probeSandbox({ platform: "linux", env: { PATH: dir.path }, tmpDir: dir.path });
    expect(probe.availability).toMatchObject({ available: false, reason: expect.stringContaining("not installed") });
    expect(probe.launcher).toBeUndefined();
  });

  test("a bwrap that cannot create namespaces: unavailable, with its message", async () => {
    using dir = tempDir();
    const fake = join(dir.path, "bwrap");
    writeFileSync(fake, "#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n");
    chmodSync(fake, 0o755);
    const probe = await probeSandbox({ platform: "linux", env: { PATH: dir.path }, tmpDir: dir.path });
    expect(probe.availability.available).toBe(false);
    if (!probe.availability.available)
      expect(probe.availability.reason).toContain("setting up uid map: Permission denied");
  });

  // A bwrap of its own: `--help` lists --disable-userns or not, as bwrap 0.8 and later or earlier
  // do; a trial with a flag it does not know fails, as bwrap does; every run is logged.
  function fakeBwrap(dir: string, knowsDisableUserns: boolean): { log: string } {
    const log = join(dir, "runs.log");
    const help = knowsDisableUserns
      ? "    --disable-userns             Disable further use of user namespaces"
      : "    --unshare-user               Create new user namespace";
    writeFileSync(
      join(dir, "bwrap"),
      `#!/bin/sh\necho "$*" >> '${log}'\nif [ "$1" = --help ]; then printf '%s\\n' ` +
        `'usage: bwrap [OPTIONS...] [--] COMMAND [ARGS...]' '${help}'; exit 0; fi\n` +
        (knowsDisableUserns
          ? "exit 0\n"
          : `case " $* " in *" --disable-userns "*) echo 'bwrap: Unknown option ` +
            `--disable-userns' >&2; exit 1;; esac\nexit 0\n`),
    );
    chmodSync(join(dir, "bwrap"), 0o755);
    return { log };
  }
  const runs = (log: string) => readFileSync(log, "utf8").trim().split("\n");

  test("a bwrap with --disable-userns: one trial, with the flag, while --help runs", async () => {
    using dir = tempDir();
    const { log } = fakeBwrap(dir.path, true);
    const probe = await probeSandbox({ platform: "linux", env: { PATH: dir.path }, tmpDir: dir.path });
    expect(probe.launcher).toEqual({ kind: "bwrap", path: join(dir.path, "bwrap"), disableUserns: true });
    const lines = runs(log);
    expect(lines).toHaveLength(2);
    expect(lines.filter((line) => line === "--help")).toHaveLength(1);
    expect(lines.filter((line) => line.includes("--disable-userns"))).toHaveLength(1);
  });

  test(
    "an older bwrap (no --disable-userns): its trial is run again without the flag, " + "and it is used without it",
    async () => {
      using dir = tempDir();
      const { log } = fakeBwrap(dir.path, false);
      const probe = await probeSandbox({ platform: "linux", env: { PATH: dir.path }, tmpDir: dir.path });
      expect(probe.availability.available).toBe(true);
      expect(probe.launcher).toEqual({ kind: "bwrap", path: join(dir.path, "bwrap"), disableUserns: false });
      const trials = runs(log).filter((line) => line !== "--help");
      expect(trials).toHaveLength(2);
      expect(trials.filter((line) => !line.includes("--disable-userns"))).toHaveLength(1);
    },
  );

  test("Windows has no OS sandbox: the fix points to WSL", async () => {
    using dir = tempDir();
    const probe = await probeSandbox({ platform: "win32", env: {}, tmpDir: dir.path });
    expect(probe.availability).toMatchObject({ available: false, fix: expect.stringContaining("WSL") });
  });
});

describeSandbox("the machine's sandbox", () => {
  test("the probe finds a working launcher", () => {
    expect(machineSandbox.availability.available).toBe(true);
    expect(machineSandbox.launcher?.kind).toBe(process.platform === "darwin" ? "seatbelt" : "bwrap");
  });
});
