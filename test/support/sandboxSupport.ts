// Shared by the sandbox tests: a fake file tree for the pure launchers, the machine's sandbox
// (a CI run without one fails instead of skipping), a loopback HTTP server, and an HTTP client
// command that works inside the sandbox.
import { describe, test } from "bun:test";
import { readFileSync, readdirSync, rmSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import type { PathKind } from "../../src/sandbox/fsView.ts";
import type { LinkFsView } from "../../src/sandbox/paths.ts";
import type { SandboxSpec } from "../../src/sandbox/types.ts";
import { type SandboxProbe, probeSandbox } from "../../src/sandbox/probe.ts";
import { makeTempDir } from "./tempDir.ts";

/** A file tree in memory: folders, files (with content) and symlinks (absolute or relative targets). */
export function fakeFs(tree: {
  dirs?: string[];
  files?: Record<string, string>;
  links?: Record<string, string>;
}): LinkFsView {
  const dirs = new Set<string>(["/"]);
  const addDir = (path: string) => {
    for (let dir = path; dir !== "/"; dir = dirname(dir)) dirs.add(dir);
  };
  for (const dir of tree.dirs ?? []) addDir(dir);
  for (const file of Object.keys(tree.files ?? {})) addDir(dirname(file));
  for (const link of Object.keys(tree.links ?? {})) addDir(dirname(link));
  const links = tree.links ?? {};
  const files = tree.files ?? {};
  const realpath = (path: string): string => {
    const parts = path.split("/").filter(Boolean);
    let current = "/";
    for (const part of parts) {
      current = join(current, part);
      const target = links[current];
      if (target !== undefined) current = realpath(resolve(dirname(current), target));
    }
    return current;
  };
  // As lstat and readlink see a path: the links among its parents followed, the last component not.
  const unlinked = (path: string) => (path === "/" ? path : join(realpath(dirname(path)), basename(path)));
  return {
    kind(path): PathKind {
      const at = unlinked(path);
      if (links[at] !== undefined) return "symlink";
      if (dirs.has(at)) return "dir";
      return files[at] !== undefined ? "file" : "missing";
    },
    realpath,
    readText: (path) => files[realpath(path)],
    readlink: (path) => links[unlinked(path)],
    list: (path) => {
      const dir = realpath(path);
      const children = [...dirs, ...Object.keys(files), ...Object.keys(links)].filter(
        (entry) => entry !== dir && dirname(entry) === dir,
      );
      return [...new Set(children.map((entry) => basename(entry)))].sort();
    },
  };
}

/** A spec for the pure path tests: project /w/app, home /h, nothing extra, no network; `overrides` on top. */
export function pathSpec(overrides: Partial<SandboxSpec> = {}): SandboxSpec {
  return {
    root: "/w/app",
    home: "/h",
    tmpDir: "/t",
    projectReadOnly: false,
    writePaths: [],
    protectedPaths: [],
    denyReadPaths: [],
    network: { mode: "none" },
    ...overrides,
  };
}

/** The machine's sandbox, probed once per test file. */
const probeDir = makeTempDir("garuda-probe-");
export const machineSandbox: SandboxProbe = await probeSandbox({ env: process.env, tmpDir: probeDir });
rmSync(probeDir, { recursive: true, force: true });

/**
 * describe() for tests that need the machine's OS sandbox; with `kind`, only that sandbox (bwrap:
 * Linux, seatbelt: macOS), and on the other OS the tests do not apply and are not registered.
 * Without the sandbox they are skipped on a developer's machine, but in CI (CI=true) they fail
 * with the reason and the fix.
 */
export function describeSandbox(name: string, body: () => void, kind?: "bwrap" | "seatbelt"): void {
  if (kind && process.platform !== (kind === "bwrap" ? "linux" : "darwin")) return;
  const availability = machineSandbox.availability;
  if (availability.available) return describe(name, body);
  if (process.env.CI === "true") {
    return describe(name, () => {
      test("the OS sandbox is available", () => {
        throw new Error(`sandbox tests cannot run: ${availability.reason}. Fix: ${availability.fix}`);
      });
    });
  }
  describe.skip(name, body);
}

/** How tests start the bridge: this Bun running the source entry. */
export const SELF_COMMAND = [process.execPath, join(import.meta.dir, "../../src/sandbox/bridgeMain.ts")];

/** What a test's executor on the machine's sandbox is made with: the bridge from source, a short kill grace. */
/**
 * Runs a shell line on the host, outside any sandbox, with `home` as HOME: the control that a place is writable at all.
 */
export function runOnHost(command: string, home: string): { exitCode: number; output: string } {
  const result = Bun.spawnSync(["sh", "-c", command], { cwd: home, env: { HOME: home, PATH: "/usr/bin:/bin" } });
  return { exitCode: result.exitCode, output: result.stderr.toString() };
}

export function testExecutorOptions(root: string, home: string) {
  return { root, home, selfCommand: SELF_COMMAND, probe: machineSandbox, killGraceMs: 300 };
}

/**
 * A loopback HTTP server answering `hello <path>`; `/big` sends `bigBytes` bytes. It reads a
 * request's body whole before it answers: a server that answers and closes with a body unread
 * resets the connection, and a reset may throw away its answer before any relay reads it (TCP's,
 * not Garuda's).
 */
export function httpServer(bigBytes = 1024): {
  port: number;
  url: (path: string, host?: string) => string;
  stop: () => void;
} {
  const big = new Uint8Array(bigBytes).fill(97);
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      await request.arrayBuffer();
      const path = new URL(request.url).pathname;
      return new Response(path === "/big" ? big : `hello ${path}\n`);
    },
  });
  const port = server.port as number;
  return { port, url: (path, host = "127.0.0.1") => `http://${host}:${port}${path}`, stop: () => server.stop(true) };
}

/** HTTP clients found here: curl when installed, and always this Bun's fetch. */
export const HTTP_CLIENTS: Array<"curl" | "bun"> = Bun.which("curl") ? ["curl", "bun"] : ["bun"];

/**
 * A shell command that GETs `url` and prints the body: through the environment's proxy, or with
 * `direct`, connecting itself (the proxy variables ignored).
 */
export function httpGet(url: string, options: { direct?: boolean; client?: "curl" | "bun" } = {}): string {
  const client = options.client ?? (HTTP_CLIENTS[0] as "curl" | "bun");
  if (client === "curl") return `curl -sS --max-time 10 ${options.direct ? "--noproxy '*' " : ""}'${url}'`;
  const script = `const r = await fetch(${JSON.stringify(url)}); process.stdout.write(await r.text());`;
  const unset = options.direct
    ? "env -u HTTP_PROXY -u http_proxy -u HTTPS_PROXY -u https_proxy -u ALL_PROXY -u all_proxy "
    : "";
  return `${unset}'${process.execPath}' -e '${script}'`;
}

/** Pids of `sleep <tag>` processes (the exact command line, so not the shell that started them). */
export function sleepers(tag: string): number[] {
  if (process.platform !== "linux") {
    const found = Bun.spawnSync(["pgrep", "-fx", `sleep ${tag}`], { env: { PATH: "/usr/bin:/bin" } }).stdout.toString();
    return found.split("\n").filter(Boolean).map(Number);
  }
  const pids: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, "utf8") === `sleep\0${tag}\0`) pids.push(Number(name));
    } catch {
      // gone
    }
  }
  return pids;
}

/** Waits until `check` holds (polling), or fails after `ms`. */
export async function eventually(check: () => boolean, ms = 3000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms`);
    await Bun.sleep(20);
  }
}

/** A unique number for `sleep N` markers, so a test finds only its own processes. */
export function marker(): string {
  return `${4000 + Math.floor(Math.random() * 5000)}.${Math.floor(Math.random() * 1000)}`;
}

/**
 * A command that detaches two daemons the usual ways, then runs `rest`: `sleep <tag>1` in a new
 * session (setsid) and `sleep <tag>2` double-forked (its parent subshell exits at once, so it is
 * re-parented) in a new session with its output closed. sleepers(`${tag}1`) and `${tag}2` find them.
 */
export function detachingCommand(tag: string, rest = `sleep ${tag}3`): string {
  return `setsid sleep ${tag}1 & (setsid sleep ${tag}2 </dev/null >/dev/null 2>&1 &); ${rest}`;
}

/** The live processes of detachingCommand(tag) (with its `sleep <tag>3`). */
export function detached(tag: string): number[] {
  return [...sleepers(`${tag}1`), ...sleepers(`${tag}2`), ...sleepers(`${tag}3`)];
}
