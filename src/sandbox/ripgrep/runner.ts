// Runs the embedded ripgrep (program.ts) for the file tools' searches (grep, glob,
// find_definition in src/tools/ripgrepSearch.ts), in a sandbox narrower than a command's: a new
// root with the project read-only (and the system's libraries, /usr and /lib, only for an rg that
// is dynamically linked: the static x64 one sees nothing but the project and /dev) with what commands
// may not read hidden as commands see it (paths.ts denyRead), no network, no other namespace
// shared, an empty environment, no capability. The program arrives on bubblewrap's stdin and
// lives only inside the sandbox (--ro-bind-data). So rg cannot read anything outside the project,
// nor a secret place inside it; the tools still re-check every path it prints by their own rules
// before anything is shown.
//
// A runner that fails to start says "unavailable", and the tools search with their own search
// instead: bubblewrap refusing one search (its folder swapped for a link as it started) is tried
// again next time; rg unable to run here (a library missing, an older glibc) is not.
import { lstatSync, readFileSync, readlinkSync } from "node:fs";
import { messageOf } from "../../errors/caught.ts";
import { isInside } from "../../files/isInside.ts";
import { closeFile, readAsWritten, unnamedFile } from "./outputFile.ts";
import { needsLoader, type RipgrepProgram } from "./program.ts";

export interface RipgrepRequest {
  /** The folder rg runs in (absolute, inside the root). */
  cwd: string;
  args: string[];
  signal: AbortSignal;
  /**
   * Takes rg's output as it comes, while rg still runs (the caller's work on it then overlaps
   * rg's), in pieces valid only during the call; the outcome's stdout is then empty.
   */
  onStdout?: (chunk: Uint8Array) => void;
}

export type RipgrepOutcome =
  /** `code`: rg's exit code (0 found, 1 nothing found, 2 some error); `stderr`: its messages and debug lines. */
  | { kind: "done"; code: number; stdout: Buffer; stderr: string }
  /** It could not run here; search another way. */
  | { kind: "unavailable"; why: string }
  | { kind: "cancelled" };

export interface RipgrepRunner {
  run(request: RipgrepRequest): Promise<RipgrepOutcome>;
}

export interface RipgrepRunnerOptions {
  program: RipgrepProgram;
  bwrap: string;
  /** bwrap ≥ 0.8's --disable-userns. */
  disableUserns: boolean;
  /** The project root: the only folder the search sees. */
  root: string;
  /**
   * What sandboxed commands may not read (paths.ts denyRead), asked per search: the ones inside the root are hidden.
   */
  denyRead: () => readonly string[];
  /** stdout beyond this ends the search as unavailable (the tools' own search then answers). */
  maxOutputBytes?: number;
  /** How long rg may go without printing or using any CPU before it is taken as stuck (STALL_MS). */
  stallMs?: number;
}

/**
 * rg opens each file by the name it listed: a command that puts a pipe in a file's place between
 * the two makes rg wait for a writer forever (the tools' own search opens files without waiting).
 * A run that neither prints nor uses any CPU for this long is stopped, and the tools' own search
 * answers; a busy rg always uses some.
 */
const STALL_MS = 5000;

/** Where the program is inside the sandbox. */
const PROGRAM = "/run/garuda-rg";
const MAX_OUTPUT_BYTES = 256 * 1024 * 1024;
/**
 * The system's folders a dynamically linked program needs, bound as they are on the host (a folder or a merged-/usr
 * link).
 */
const SYSTEM_FOLDERS = ["/usr", "/lib", "/lib64", "/lib32", "/libx32"];

function systemMounts(): string[] {
  const args: string[] = [];
  for (const path of SYSTEM_FOLDERS) {
    try {
      const stat = lstatSync(path);
      if (stat.isSymbolicLink()) args.push("--symlink", readlinkSync(path), path);
      else if (stat.isDirectory()) args.push("--ro-bind", path, path);
    } catch {
      // Not on this system.
    }
  }
  return args;
}

/**
 * bubblewrap's arguments for one search (without the program); `system`: bind the system's libraries (a dynamically
 * linked program).
 */
export function ripgrepSandboxArgs(
  options: Omit<RipgrepRunnerOptions, "program">,
  request: RipgrepRequest,
  system = true,
): string[] {
  const hidden: string[] = [];
  for (const path of options.denyRead()) {
    if (!isInside(path, options.root)) continue;
    try {
      const stat = lstatSync(path);
      if (stat.isDirectory()) hidden.push("--tmpfs", path, "--remount-ro", path);
      else hidden.push("--ro-bind", "/dev/null", path);
    } catch {
      // Missing: nothing to hide.
    }
  }
  return [
    "--new-session",
    "--die-with-parent",
    "--unshare-all",
    "--unshare-user",
    ...(options.disableUserns ? ["--disable-userns"] : []),
    "--cap-drop",
    "ALL",
    "--clearenv",
    ...(system ? systemMounts() : []),
    // rg aborts without /dev (its hash seeds): bubblewrap's own, with null, zero, random and tty only.
    "--dev",
    "/dev",
    ...(system ? ["--ro-bind-try", "/etc/ld.so.cache", "/etc/ld.so.cache"] : []),
    "--ro-bind",
    options.root,
    options.root,
    ...hidden,
    "--perms",
    "0555",
    "--ro-bind-data",
    "0",
    PROGRAM,
    "--chdir",
    request.cwd,
    "--",
    PROGRAM,
    ...request.args,
  ];
}

/** The dynamic loader's messages: this rg cannot run on this system, now or later. */
const CANNOT_RUN = /^bwrap: execvp|error while loading shared libraries|GLIBC_[0-9.]+' not found|exec format error/m;
/** bubblewrap's own: this search did not start (a folder swapped for a link as it started, say). */
const NOT_STARTED = /^bwrap:/m;

/** The CPU time (clock ticks) of a process and all below it, from /proc; undefined where it cannot be read. */
function treeTicks(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The fields after the command's name (which may hold spaces, in parentheses): utime and stime are the 12th and
    // 13th.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    let ticks = Number(fields[11]) + Number(fields[12]);
    for (const child of readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").split(" "))
      if (child !== "") ticks += treeTicks(Number(child)) ?? 0;
    return ticks;
  } catch {
    return undefined;
  }
}

/**
 * Calls `stuck` once a whole period passes with no output and no CPU used under `pid` (not where /proc cannot tell).
 */
function watchStall(pid: number, printed: () => number, periodMs: number, stuck: () => void): () => void {
  let last: string | undefined;
  const timer = setInterval(() => {
    const ticks = treeTicks(pid);
    if (ticks === undefined) return;
    const now = `${printed()}/${ticks}`;
    if (now === last) stuck();
    last = now;
  }, periodMs);
  return () => clearInterval(timer);
}

/** bubblewrap with rg in it; its stdout goes to `output` (outputFile.ts) where there is one, else a pipe. */
function spawnSandboxed(bwrap: string, args: string[], program: Uint8Array, output: number | undefined) {
  return Bun.spawn([bwrap, ...args], { stdin: program, stdout: output ?? "pipe", stderr: "pipe", env: {} });
}

export function createRipgrepRunner(options: RipgrepRunnerOptions): RipgrepRunner {
  const maxOutput = options.maxOutputBytes ?? MAX_OUTPUT_BYTES;
  let broken: string | undefined;
  /** Whether the program needs the system's libraries, read from it on first use. */
  let system: boolean | undefined;
  return {
    async run(request) {
      if (broken !== undefined) return { kind: "unavailable", why: broken };
      if (request.signal.aborted) return { kind: "cancelled" };
      let child: ReturnType<typeof spawnSandboxed>;
      const output = unnamedFile();
      try {
        const bytes = await options.program.bytes();
        system ??= needsLoader(bytes);
        child = spawnSandboxed(options.bwrap, ripgrepSandboxArgs(options, request, system), bytes, output);
      } catch (error) {
        closeFile(output);
        // The program would not unzip, or bubblewrap is gone: not to be tried again.
        broken = messageOf(error);
        return { kind: "unavailable", why: broken };
      }
      let tooMuch = false;
      let stalled = false;
      const onAbort = () => child.kill("SIGKILL");
      request.signal.addEventListener("abort", onAbort, { once: true });
      let size = 0;
      const stopWatch = watchStall(
        child.pid,
        () => size,
        options.stallMs ?? STALL_MS,
        () => {
          stalled = true;
          child.kill("SIGKILL");
        },
      );
      try {
        const chunks: Uint8Array[] = [];
        /** One piece of rg's output, as it comes (valid only during the call); false: stop reading. */
        const take = (chunk: Uint8Array): boolean => {
          size += chunk.length;
          if (size > maxOutput) {
            tooMuch = true;
            child.kill("SIGKILL");
            return false;
          }
          if (request.onStdout) request.onStdout(chunk);
          else chunks.push(Buffer.from(chunk));
          return true;
        };
        const reading =
          output === undefined
            ? (async () => {
                for await (const chunk of child.stdout as ReadableStream<Uint8Array>) if (!take(chunk)) break;
              })()
            : readAsWritten(output, child.exited, take);
        const [stderr, code] = await Promise.all([new Response(child.stderr).text(), child.exited, reading]);
        if (request.signal.aborted) return { kind: "cancelled" };
        if (tooMuch) return { kind: "unavailable", why: `its output passed ${maxOutput} bytes` };
        if (stalled)
          return {
            kind: "unavailable",
            why: "it printed nothing and used no CPU for a while (a pipe in a file's place?)",
          };
        // 126, 127: the shell's "cannot execute" and "not found" (the loader's 127 too), which rg
        // never exits with. 2 is rg's own errors, whose lines carry the project's names and so can
        // spell any message (a link named "error while loading shared libraries"); bubblewrap's
        // own failures exit 1.
        const rgErrors = code === 2;
        if (code === 126 || code === 127 || (code !== 0 && !rgErrors && CANNOT_RUN.test(stderr))) {
          broken = stderr.split("\n").find((line) => CANNOT_RUN.test(line)) ?? `exit ${code}`;
          return { kind: "unavailable", why: broken };
        }
        if (code !== 0 && !rgErrors && NOT_STARTED.test(stderr))
          return { kind: "unavailable", why: stderr.split("\n").find((line) => NOT_STARTED.test(line)) ?? "" };
        return { kind: "done", code, stdout: Buffer.concat(chunks), stderr };
      } finally {
        stopWatch();
        closeFile(output);
        request.signal.removeEventListener("abort", onAbort);
      }
    },
  };
}
