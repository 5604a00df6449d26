// The process keeper: how a command runs on the host (Linux). A sandboxed command lives in a PID
// namespace that dies with bwrap, and bwrap dies with Garuda (--die-with-parent); a host command
// has no namespace, and a daemon it detaches (setsid, double fork) is re-parented away from the
// command's tree. So every host command runs under its own keeper, a small Garuda process that
//   - is a child subreaper: whatever the command detaches is re-parented to the keeper, never to
//     Garuda or init, so everything the command started stays below the keeper;
//   - has a parent-death signal: when Garuda dies, even by SIGKILL, the kernel sends the keeper
//     SIGTERM. (A parent-death signal is not inherited, which is why the keeper holds it: a
//     setsid'd grandchild of the command would not get one.)
// When the command's main process exits, the keeper kills what is left below it (as a PID
// namespace would), then exits as the command did. On SIGTERM (a cancel, a stop, Garuda gone) it
// sends SIGTERM to everything below it, SIGKILL after the grace period, and exits.
// Without a PID namespace the command still sees and can signal the host's processes, and keeps
// the user's own uid and file ownership: it runs as the user approved it.
//
//   garuda __process-keeper <parent pid> <grace ms> <cwd> -- <program> <args…>
// The command's environment comes in GARUDA_KEEPER_ENV (JSON), so the keeper's own start-up (Bun)
// sees none of it (BUN_OPTIONS and the like would change what the binary does). Its own working
// folder is "/", so nothing in the project is read as Bun configuration.
import { constants } from "node:os";
import { messageOf } from "../errors/caught.ts";
import { children, zombieChildren } from "./processGuards.ts";
import { descendants, processTable, signalProcess, stillRunning } from "./processTree.ts";
import { KEEPER_COMMAND } from "./keeperName.ts";
import { type Native, openNative, PR_SET_CHILD_SUBREAPER, PR_SET_PDEATHSIG, WNOHANG } from "./native.ts";

const KEEPER_ENV = "GARUDA_KEEPER_ENV";

const POLL_MS = 20;
/** How often adopted processes that exited are reaped while the command runs. */
const REAP_EVERY_MS = 1_000;
/** After the command ended: how long leftovers are killed again and again (each kill can re-parent new ones). */
const SWEEP_LIMIT_MS = 3_000;

/**
 * How to start the keeper, from the sandbox bridge's command: the compiled binary with its hidden
 * command, or (from source) Bun with keeperMain.ts beside the bridge's entry file.
 */
export function keeperCommandFor(selfCommand: string[]): string[] {
  const [program, entry] = selfCommand;
  if (program === undefined) throw new Error("selfCommand must name the program that runs the sandbox bridge");
  if (entry !== undefined && /\.[cm]?[jt]s$/.test(entry)) return [program, entry.replace(/[^/]+$/, "keeperMain.ts")];
  return [program, KEEPER_COMMAND];
}

/** The keeper's argv and environment for one host command. */
export function keeperLaunch(
  keeper: string[],
  options: { parent: number; graceMs: number; cwd: string; argv: string[]; env: Record<string, string> },
): { argv: string[]; env: Record<string, string> } {
  return {
    argv: [...keeper, String(options.parent), String(options.graceMs), options.cwd, "--", ...options.argv],
    env: { [KEEPER_ENV]: JSON.stringify(options.env) },
  };
}

interface KeeperArgs {
  parent: number;
  graceMs: number;
  cwd: string;
  argv: string[];
}

function parseArgs(args: string[]): KeeperArgs | undefined {
  const dash = args.indexOf("--");
  if (dash !== 3 || args.length < 5) return undefined;
  const parent = Number(args[0]);
  const graceMs = Number(args[1]);
  if (!Number.isInteger(parent) || parent < 1 || !Number.isFinite(graceMs) || graceMs < 0) return undefined;
  return { parent, graceMs, cwd: args[2] as string, argv: args.slice(4) };
}

/** Live processes below the keeper (not zombies). With no child at all (the usual end) /proc is not walked. */
function liveBelow(): number[] {
  if (children().length === 0) return [];
  const table = processTable();
  return descendants(process.pid, table).filter((pid) => table.get(pid)?.zombie === false);
}

/** Reaps the keeper's zombie children, except the command's main process (Bun reaps that one). */
function reapAdopted(libc: Native | undefined, main: number): void {
  if (!libc) return;
  for (const pid of zombieChildren()) if (pid !== main) libc.waitpid(pid, WNOHANG);
}

/** SIGKILL to everything below the keeper until nothing is left (or the limit passes). */
async function killAll(libc: Native | undefined, main: number): Promise<void> {
  const deadline = Date.now() + SWEEP_LIMIT_MS;
  for (;;) {
    const left = liveBelow();
    reapAdopted(libc, main);
    if (left.length === 0 || Date.now() > deadline) return;
    for (const pid of left) signalProcess(pid, "SIGKILL");
    await Bun.sleep(POLL_MS);
  }
}

/** Exits as the command did: the same code, or the same signal. */
function exitLike(code: number | null, signal: NodeJS.Signals | null): never {
  if (signal) {
    for (const name of ["SIGTERM", "SIGINT", "SIGHUP"] as const) process.removeAllListeners(name);
    process.kill(process.pid, signal);
    process.exit(128 + (constants.signals[signal] ?? 0));
  }
  process.exit(code ?? 1);
}

/** Runs the keeper; never returns (it exits as the command did). */
export async function runKeeper(args: string[]): Promise<never> {
  const parsed = parseArgs(args);
  if (!parsed) {
    process.stderr.write(`garuda ${KEEPER_COMMAND}: usage: <parent pid> <grace ms> <cwd> -- <program> <args…>\n`);
    process.exit(2);
  }
  let env: Record<string, string>;
  try {
    env = JSON.parse(process.env[KEEPER_ENV] ?? "{}") as Record<string, string>;
  } catch {
    process.stderr.write(`garuda ${KEEPER_COMMAND}: ${KEEPER_ENV} is not JSON\n`);
    process.exit(2);
  }
  // The handlers come first: a SIGTERM (a stop, Garuda gone) that arrived before them would end
  // the keeper alone and leave the command running.
  let main: ReturnType<typeof Bun.spawn> | undefined;
  let libc: Native | undefined;
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    if (!main) process.exit(1); // stopped before the command started: it never runs
    const table = processTable();
    const targets = descendants(process.pid, table);
    for (const pid of targets) signalProcess(pid, "SIGTERM");
    const deadline = Date.now() + (parsed as KeeperArgs).graceMs;
    while (Date.now() < deadline && stillRunning(table, targets).length > 0) await Bun.sleep(POLL_MS);
    await killAll(libc, main.pid);
  };
  for (const name of ["SIGTERM", "SIGINT", "SIGHUP"] as const) process.on(name, () => void stop());
  libc = openNative();
  libc?.prctl(PR_SET_CHILD_SUBREAPER, 1);
  libc?.prctl(PR_SET_PDEATHSIG, 15); // SIGTERM
  // Garuda may have died before the parent-death signal was set: then the command never starts.
  if (process.ppid !== parsed.parent) process.exit(1);

  try {
    main = Bun.spawn(parsed.argv, { cwd: parsed.cwd, env, stdio: ["inherit", "inherit", "inherit"] });
  } catch (error) {
    process.stderr.write(`${parsed.argv[0]}: ${messageOf(error)}\n`);
    process.exit(127);
  }
  const mainPid = main.pid;
  const reaper = setInterval(() => reapAdopted(libc, mainPid), REAP_EVERY_MS);

  await main.exited;
  clearInterval(reaper);
  await killAll(libc, main.pid);
  exitLike(main.exitCode, main.signalCode as NodeJS.Signals | null);
}
