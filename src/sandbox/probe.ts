// Is an OS sandbox usable here? Linux: bwrap on PATH (never from inside the project) and a trial
// run with the real flags (user, PID and network namespaces) must succeed. macOS:
// /usr/bin/sandbox-exec must exist and apply a profile. When not, the reason and the exact fix,
// so the notice can say how to get the sandbox back (until then every command asks first).
import { accessSync, constants, existsSync, readFileSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join } from "node:path";
import { bwrapArgv } from "./bwrap.ts";
import { isInside } from "../files/isInside.ts";
import { SANDBOX_EXEC, seatbeltArgv } from "./seatbelt.ts";
import type { SandboxAvailability, SandboxSpec } from "./types.ts";

export type Launcher = { kind: "bwrap"; path: string; disableUserns: boolean } | { kind: "seatbelt" };

export interface SandboxProbe {
  availability: SandboxAvailability;
  launcher?: Launcher;
}

export interface ProbeOptions {
  platform?: NodeJS.Platform;
  /** The environment bwrap is looked up in (PATH). */
  env: Record<string, string | undefined>;
  /** A private folder the trial run may use as root, home and tmp. */
  tmpDir: string;
  /** The project root: a bwrap inside it is never used. */
  root?: string;
}

/** What the diagnosis reads from the machine. */
export interface HostFacts {
  /** /etc/os-release content. */
  osRelease?: string;
  /** /proc/sys/kernel/apparmor_restrict_unprivileged_userns */
  apparmorRestrict?: string;
  /** /proc/sys/kernel/unprivileged_userns_clone (Debian's older switch) */
  usernsClone?: string;
  /** /proc/sys/user/max_user_namespaces */
  maxUserNamespaces?: string;
  inContainer?: boolean;
}

const read = (path: string) => {
  try {
    return readFileSync(path, "utf8").trim();
  } catch {
    return undefined;
  }
};

function readHostFacts(): HostFacts {
  const facts: HostFacts = { inContainer: existsSync("/.dockerenv") || existsSync("/run/.containerenv") };
  const entries: Array<[keyof HostFacts, string]> = [
    ["osRelease", "/etc/os-release"],
    ["apparmorRestrict", "/proc/sys/kernel/apparmor_restrict_unprivileged_userns"],
    ["usernsClone", "/proc/sys/kernel/unprivileged_userns_clone"],
    ["maxUserNamespaces", "/proc/sys/user/max_user_namespaces"],
  ];
  for (const [key, path] of entries) {
    const value = read(path);
    if (value !== undefined) (facts as Record<string, unknown>)[key] = value;
  }
  return facts;
}

/** The distribution's command to install bubblewrap, from /etc/os-release (ID, then ID_LIKE). */
export function installCommand(osRelease: string | undefined): string {
  const field = (name: string) => new RegExp(`^${name}="?([^"\\n]*)"?$`, "m").exec(osRelease ?? "")?.[1] ?? "";
  const ids = `${field("ID")} ${field("ID_LIKE")}`.toLowerCase().split(/\s+/);
  const commands: Array<[string[], string]> = [
    [["debian", "ubuntu"], "sudo apt-get install bubblewrap"],
    [["fedora", "rhel", "centos"], "sudo dnf install bubblewrap"],
    [["arch", "manjaro"], "sudo pacman -S bubblewrap"],
    [["alpine"], "sudo apk add bubblewrap"],
    [["opensuse", "suse", "sles"], "sudo zypper install bubblewrap"],
    [["gentoo"], "sudo emerge sys-apps/bubblewrap"],
    [["void"], "sudo xbps-install bubblewrap"],
    [["nixos"], "add bubblewrap to environment.systemPackages (or: nix-env -iA nixos.bubblewrap)"],
  ];
  for (const id of ids) {
    const hit = commands.find(([names]) => names.some((name) => id === name || id.startsWith(`${name}-`)));
    if (hit) return hit[1];
  }
  return "install the bubblewrap package with your distribution's package manager";
}

export function missingBwrap(facts: HostFacts): { reason: string; fix: string } {
  return {
    reason: "bubblewrap (bwrap) is not installed, so commands cannot run in the Linux sandbox",
    fix: `${installCommand(facts.osRelease)}, then restart Garuda`,
  };
}

/** Why the trial run failed and what to do, from bwrap's message and the machine's settings. */
export function diagnoseBwrap(stderr: string, facts: HostFacts, bwrapPath: string): { reason: string; fix: string } {
  const message = stderr.trim().split("\n")[0] ?? "";
  const said = message ? ` (bwrap: ${message.replace(/^bwrap:\s*/, "")})` : "";
  if (facts.apparmorRestrict === "1") {
    return {
      reason:
        `AppArmor stops bubblewrap from creating user namespaces ` +
        `(kernel.apparmor_restrict_unprivileged_userns=1, the Ubuntu 24.04 ` +
        `default)${said}`,
      fix: [
        "Give bwrap (only bwrap) an AppArmor profile that allows user namespaces:",
        "  sudo tee /etc/apparmor.d/bwrap <<'EOF'",
        "abi <abi/4.0>,",
        "include <tunables/global>",
        `profile bwrap ${bwrapPath} flags=(unconfined) {`,
        "  userns,",
        "  include if exists <local/bwrap>",
        "}",
        "EOF",
        "  sudo apparmor_parser -r /etc/apparmor.d/bwrap",
        "or lift the restriction for every program:",
        "  sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0",
        "  echo kernel.apparmor_restrict_unprivileged_userns=0 | sudo tee /etc/sysctl.d/60-garuda-userns.conf",
      ].join("\n"),
    };
  }
  if (facts.usernsClone === "0") {
    return {
      reason: `unprivileged user namespaces are switched off (kernel.unprivileged_userns_clone=0)${said}`,
      fix:
        "sudo sysctl -w kernel.unprivileged_userns_clone=1\necho " +
        "kernel.unprivileged_userns_clone=1 | sudo tee " +
        "/etc/sysctl.d/60-garuda-userns.conf",
    };
  }
  if (facts.maxUserNamespaces === "0") {
    return {
      reason: `user namespaces are switched off (user.max_user_namespaces=0)${said}`,
      fix:
        "sudo sysctl -w user.max_user_namespaces=15000\necho " +
        "user.max_user_namespaces=15000 | sudo tee /etc/sysctl.d/60-garuda-userns.conf",
    };
  }
  if (facts.inContainer) {
    return {
      reason: `Garuda runs in a container that does not allow namespaces${said}`,
      fix:
        "start the container with --security-opt seccomp=unconfined --security-opt " +
        "apparmor=unconfined (or run Garuda outside the container)",
    };
  }
  return {
    reason: `bubblewrap failed its trial run${said || " without a message"}`,
    fix:
      `check that this works for your user: ${bwrapPath} --unshare-user --unshare-pid ` +
      `--unshare-net --ro-bind / / true`,
  };
}

/** bwrap on PATH, skipping relative entries and folders inside the project (a planted ./bwrap). */
export function findBwrap(path: string | undefined, root: string | undefined): string | undefined {
  for (const dir of (path ?? "/usr/bin:/bin").split(":")) {
    if (!isAbsolute(dir) || (root && isInside(dir, root))) continue;
    const candidate = join(dir, "bwrap");
    try {
      accessSync(candidate, constants.X_OK);
      return realpathSync(candidate);
    } catch {
      // not here
    }
  }
  return undefined;
}

/** What `bwrap --help` prints, stdout and stderr. */
async function helpText(path: string, env: Record<string, string>): Promise<string> {
  const proc = Bun.spawn([path, "--help"], { env, stdin: "ignore", stdout: "pipe", stderr: "pipe", timeout: 10_000 });
  const [stdout, stderr] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return `${stdout}${stderr}`;
}

async function trial(argv: string[], env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const proc = Bun.spawn(argv, { env, stdin: "ignore", stdout: "ignore", stderr: "pipe", timeout: 10_000 });
  const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
  return { code, stderr };
}

/**
 * The folder a process's trial run uses. On Linux /tmp itself: bwrap binds a tmp elsewhere at its
 * own path too, which leaves that path's folders behind as empty mount points inside it.
 */
export function trialTmpDir(): string {
  return process.platform === "linux" ? "/tmp" : tmpdir();
}

function trialSpec(tmpDir: string): SandboxSpec {
  return {
    root: tmpDir,
    home: tmpDir,
    tmpDir,
    projectReadOnly: true,
    writePaths: [],
    protectedPaths: [],
    denyReadPaths: [],
    network: { mode: "none" },
  };
}

async function probeBwrap(options: ProbeOptions): Promise<SandboxProbe> {
  const facts = readHostFacts();
  const path = findBwrap(options.env.PATH, options.root);
  if (!path) return { availability: { available: false, ...missingBwrap(facts) } };
  const env = { PATH: options.env.PATH ?? "/usr/bin:/bin" };
  const trialWith = (disableUserns: boolean) =>
    trial([path, ...bwrapArgv(trialSpec(options.tmpDir), ["true"], { disableUserns })], env);
  // `--help` says whether this bwrap has --disable-userns (0.8 and later). Both processes start
  // at once, the trial with the flag, and neither blocks the thread: the probe runs while `garuda
  // acp` loads. An older bwrap's trial is run again without the flag; its first one is dropped.
  const [help, withFlag] = await Promise.all([helpText(path, env), trialWith(true)]);
  const disableUserns = help.includes("--disable-userns");
  const result = disableUserns ? withFlag : await trialWith(false);
  if (result.code === 0)
    return { availability: { available: true, kind: "bwrap" }, launcher: { kind: "bwrap", path, disableUserns } };
  return { availability: { available: false, ...diagnoseBwrap(result.stderr, facts, path) } };
}

async function probeSeatbelt(options: ProbeOptions): Promise<SandboxProbe> {
  if (!existsSync(SANDBOX_EXEC)) {
    return {
      availability: {
        available: false,
        reason: `${SANDBOX_EXEC} is missing`,
        fix: "it ships with macOS; check that /usr/bin is intact (reinstall macOS command-line support)",
      },
    };
  }
  const result = await trial(seatbeltArgv(trialSpec(options.tmpDir), ["/usr/bin/true"]), { PATH: "/usr/bin:/bin" });
  if (result.code === 0) return { availability: { available: true, kind: "seatbelt" }, launcher: { kind: "seatbelt" } };
  const nested = result.code === 71 || /sandbox_apply/.test(result.stderr);
  return {
    availability: {
      available: false,
      reason: nested
        ? "Garuda runs inside another sandbox, and macOS does not allow a sandbox inside a sandbox"
        : `sandbox-exec failed its trial run: ${result.stderr.trim().split("\n")[0] ?? `exit ${result.code}`}`,
      fix: nested
        ? "start Garuda from a terminal that is not itself sandboxed"
        : `check that this works: ${SANDBOX_EXEC} -p '(version 1)(allow default)' /usr/bin/true`,
    },
  };
}

export async function probeSandbox(options: ProbeOptions): Promise<SandboxProbe> {
  const platform = options.platform ?? process.platform;
  if (platform === "linux") return probeBwrap(options);
  if (platform === "darwin") return probeSeatbelt(options);
  return {
    availability: {
      available: false,
      reason: `there is no OS sandbox for ${platform}`,
      fix: "run Garuda on Linux (with bubblewrap) or macOS; on Windows, inside WSL",
    },
  };
}
