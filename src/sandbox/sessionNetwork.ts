// One network namespace per session on Linux: every sandboxed command of an executor that goes
// through the same egress proxy joins one namespace, with one bridge to the proxy in it, so a dev
// server one command starts is reachable from the next on localhost, and a session costs one
// bridge process instead of one per command.
//
// The namespace is made by a short-lived "holder": bwrap with only new user and network namespaces
// (loopback only, brought up by bwrap) running `cat` under the name garuda-network-holder (a link
// to cat in the holder's folder). Once it runs, Garuda makes the namespace's listening socket on
// 127.0.0.1:<port> from inside it (socketHandover.ts: a child that enters the namespace, makes the
// socket in Garuda's table of files, and exits) and keeps a descriptor of the namespace and of its
// user namespace; the holder then ends. Garuda serves the socket in its own process — the egress
// proxy accepts there itself when the executor is told how (ExecutorOptions.serveProxy), else
// Garuda relays to the proxy's Unix socket. So a session's network costs no process at all once
// made, and no Bun process starts for it. Where the socket cannot be made so (no TinyCC, a seccomp
// policy that refuses setns), the holder is Garuda's bridge in hold mode instead, a Bun process
// that stays and relays (relay: "process").
// The holder is not a command: it sees `/` read-only and the host's PIDs (no PID namespace), so
// bwrap's --info-fd names its host pid. A command joins the namespace with util-linux's nsenter
// (user namespace first, which gives the capability to enter its network namespace) through
// Garuda's descriptors, given to it as its 3 and 4 (Garuda's own /proc/<pid>/fd is root's: it is
// not dumpable), then closes them and starts bwrap as before — every mount, the PID namespace,
// --disable-userns and the limits — only without --unshare-net:
//
//   [cgroup join] nsenter --user=/proc/self/fd/3 --net=/proc/self/fd/4 --preserve-credentials -- \
//     /bin/sh -c 'exec 3<&- 4<&- "$@"' garuda-join bwrap … -- shell
//
// (With a bridge in hold mode: --user=/proc/H/ns/user --net=/proc/H/ns/net of the bridge H.)
// nsenter and sh exec (no fork), so the job's pid is still bwrap's and job.ts ends commands as
// before. The namespace ends with the executor (shutdown closes the descriptors) and with
// Garuda however it ends: the kernel closes them, also after SIGKILL, and the commands in it end
// by their own parent-death signal. A bridge in hold mode ends by bwrap's --die-with-parent and
// its stdin, a pipe from Garuda.
//
// A command must never land in the host's network: the namespace entered is checked not to be
// Garuda's own when it is made, and so is the listening socket's. A descriptor names one
// namespace for as long as it is open (no pid to be reused); a bridge's namespace inode is pinned
// when it reports ready and compared again at every join.
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { messageOf } from "../errors/caught.ts";
import { BRIDGE_READY_MS } from "./bridge.ts";

/** The nsenter programs looked for, in order: system paths only, never PATH (which a project can put first). */
const NSENTER_PATHS = ["/usr/bin/nsenter", "/bin/nsenter", "/usr/sbin/nsenter", "/sbin/nsenter"];

/** Where `cat` is looked for: system paths only (never PATH, which a project can put first). */
const CAT_PATHS = ["/usr/bin/cat", "/bin/cat"];
/** The name the holder runs under (a link to cat), so `ps` and the tests can tell it from any other cat. */
export const HOLDER_NAME = "garuda-network-holder";

/** How long a holder may take to start and report ready: the bridge's own wait for the proxy, plus its start. */
const HOLDER_READY_MS = BRIDGE_READY_MS + 3_000;
const POLL_MS = 5;

export function findNsenter(
  exists: (path: string) => boolean = (path) => statSync(path, { throwIfNoEntry: false })?.isFile() ?? false,
): string | undefined {
  return NSENTER_PATHS.find(exists);
}

export interface SessionNetworkOptions {
  bwrap: string;
  nsenter: string;
  /** How to start Garuda's bridge (executor's selfCommand). */
  selfCommand: string[];
  /** The bridge's port inside the namespace. */
  port: number;
  /** The environment the holder starts with (no secret is needed by it: only PATH-like basics). */
  env: Record<string, string>;
  /**
   * "agent": the namespace's listening socket is made by Garuda, which serves it (the default);
   * "process": a bridge process in the namespace relays (kept for where the socket cannot be made inside, which
   * switches to it by itself, and for bench/sandbox.ts's comparison).
   */
  relay?: RelayMode;
  /** Serves a handed-over listening socket for the proxy at `socketPath`; stop() closes it. */
  serve: (socketPath: string, fd: number) => Stoppable;
  /** How the socket is made inside (socketHandover.ts); tests put a refusal here. */
  listenInside?: Handover["listenInside"];
}

export type RelayMode = "agent" | "process";
export interface Stoppable {
  stop(): void;
}

/**
 * Either the argv prefix that enters the session's network, or why it could not start. `fds`: the
 * descriptors the command must get as its 3 and 4 (the namespaces), which the prefix names and
 * closes before it runs anything else.
 */
export type JoinResult = { prefix: string[]; fds?: [number, number] } | { error: string };

/**
 * Run by nsenter once it has entered through descriptors 3 and 4: closes them, so nothing in the
 * sandbox holds the namespaces, and execs the rest (bwrap keeps every descriptor it is given).
 */
const CLOSE_NAMESPACE_FDS = 'exec 3<&- 4<&- "$@"';

export interface SessionNetworks {
  /** Waits (without blocking) until the network for this proxy socket is up, starting it if needed. */
  ready(socketPath: string): Promise<JoinResult>;
  /** The same, blocking: for start(), which answers synchronously; only the first command of a session waits. */
  readySync(socketPath: string): JoinResult;
  /** Ends every network (its descriptors, and a holder still running) and removes their state. */
  close(): Promise<void>;
}

interface Holder {
  proc: Subprocess<"pipe", "ignore", "ignore">;
  dir: string;
  relay: RelayMode;
  /** Agent relay: the namespace's listening socket, served by Garuda, once made. */
  listener?: Stoppable;
  /** Agent relay: Garuda's descriptors of the namespace and its user namespace, once made (the holder process then ends). */
  namespaces?: { user: number; net: number };
  /** The bridge's host pid and its network namespace's inode, once it reported ready. */
  pid?: number;
  netIno?: number;
  error?: string;
  started: number;
}

const nsIno = (pid: number | "self", kind: "net" | "user"): number | undefined => {
  try {
    return statSync(`/proc/${pid}/ns/${kind}`).ino;
  } catch {
    return undefined;
  }
};

/** A file's text, or "" when it is not there (yet) or cannot be read. */
function textOf(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}

const ended = (holder: Holder) => holder.proc.exitCode !== null || holder.proc.signalCode !== null;

type Handover = typeof import("./socketHandover.ts");
/** Loaded at the first session network (bun:ffi); synchronously, since start() waits for its network synchronously. */
let handover: Handover | undefined;
const loadHandover = (): Handover => {
  handover ??= require("./socketHandover.ts") as Handover;
  return handover;
};

export function createSessionNetworks(options: SessionNetworkOptions): SessionNetworks {
  const holders = new Map<string, Holder>();
  let closed = false;
  let relay: RelayMode = options.relay ?? "agent";
  const ownNet = nsIno("self", "net");

  function spawnHolder(socketPath: string): Holder {
    const dir = mkdtempSync(join(tmpdir(), "garuda-net-"));
    const cat =
      relay === "agent" ? CAT_PATHS.find((path) => statSync(path, { throwIfNoEntry: false })?.isFile()) : undefined;
    if (!cat) relay = "process";
    let program: string[];
    if (cat) {
      // The holder runs under its own name: a link to cat, in its folder.
      symlinkSync(cat, join(dir, HOLDER_NAME));
      program = ["--info-fd", "3", "--", join(dir, HOLDER_NAME)];
    } else {
      program = [
        "--",
        ...options.selfCommand,
        "--socket",
        socketPath,
        "--port",
        String(options.port),
        "--hold",
        join(dir, "ready"),
      ];
    }
    const args = [
      "--new-session",
      "--die-with-parent",
      "--unshare-user",
      "--unshare-net",
      "--unshare-ipc",
      "--cap-drop",
      "ALL",
      "--ro-bind",
      "/",
      "/",
      "--bind",
      dir,
      dir,
      ...program,
    ];
    // bwrap writes {"child-pid": <host pid>} to its --info-fd: a file of the holder's folder
    const info = cat ? openSync(join(dir, "info"), "w", 0o600) : undefined;
    try {
      const proc = Bun.spawn([options.bwrap, ...args], {
        env: options.env,
        stdio: ["pipe", "ignore", Bun.file(join(dir, "stderr")), ...(info === undefined ? [] : [info])],
      }) as unknown as Subprocess<"pipe", "ignore", "ignore">;
      return { proc, dir, relay: cat ? "agent" : "process", started: Date.now() };
    } finally {
      if (info !== undefined) closeSync(info);
    }
  }

  /**
   * Makes the namespace's listening socket and serves it. A refusal switches this session to a
   * relay process: "retry" (the holder is ended; the next one is a bridge in hold mode).
   */
  function takeOver(holder: Holder, socketPath: string, pid: number, ino: number): JoinResult | "retry" | undefined {
    let taken: ReturnType<Handover["listenInside"]>;
    try {
      taken = (options.listenInside ?? loadHandover().listenInside)(pid, options.port, ino, holder.dir);
    } catch (error) {
      // bun:ffi, TinyCC or the C library would not load: the same as a refusal
      taken = { error: messageOf(error) };
    }
    if ("error" in taken) {
      relay = "process";
      holder.error = `the sandbox network's socket could not be made: ${taken.error}`;
      end(holder);
      return "retry";
    }
    holder.namespaces = { user: taken.user, net: taken.net };
    try {
      holder.listener = options.serve(socketPath, taken.listener);
    } catch (error) {
      closeSync(taken.listener);
      return fail(holder, `the sandbox network's socket could not be served: ${messageOf(error)}`);
    }
    // The descriptors keep the namespaces: the holder has done its work.
    endProcess(holder);
    return undefined;
  }

  /** The holder's host pid once it runs what it holds with: cat under its name (bwrap's info), or a bridge in hold mode (its ready file). */
  function readyPid(holder: Holder): number | undefined {
    if (holder.relay === "process") {
      const said = /^(\d+)\n$/.exec(textOf(join(holder.dir, "ready")));
      return said ? Number(said[1]) : undefined;
    }
    const said = /"child-pid":\s*(\d+)/.exec(textOf(join(holder.dir, "info")));
    if (!said) return undefined;
    const pid = Number(said[1]);
    // bwrap's child execs the holder last, once the namespace (loopback up) is made
    const argv0 = textOf(`/proc/${pid}/cmdline`).split("\0")[0];
    return argv0 === join(holder.dir, HOLDER_NAME) ? pid : undefined;
  }

  /** The proxy's socket answers (a C library that will not load: making the socket fails next, and a bridge checks). */
  function proxyAnswers(socketPath: string): boolean {
    try {
      return loadHandover().unixAnswers(socketPath);
    } catch {
      return true;
    }
  }

  /** One look at a holder: joinable, failed, to be tried again with a relay process, or not yet. */
  function check(holder: Holder, socketPath: string): JoinResult | "retry" | undefined {
    if (holder.error) return { error: holder.error };
    if (holder.pid === undefined) {
      const pid = readyPid(holder);
      if (pid !== undefined) {
        const ino = nsIno(pid, "net");
        if (ino === undefined || ino === ownNet)
          return fail(holder, "the sandbox network's holder is not in a network namespace of its own");
        if (holder.relay === "agent" && !proxyAnswers(socketPath)) {
          // As the bridge does: nothing runs behind a proxy that is not there.
          if (Date.now() - holder.started <= BRIDGE_READY_MS) return undefined;
          return fail(holder, `the egress proxy at ${socketPath} did not answer within ${BRIDGE_READY_MS} ms`);
        }
        holder.pid = pid;
        holder.netIno = ino;
        if (holder.relay === "agent") {
          const taken = takeOver(holder, socketPath, pid, ino);
          if (taken !== undefined) return taken;
        }
      } else if (ended(holder)) {
        return fail(
          holder,
          holderStderr(holder) ||
            `the sandbox network's holder ended (status ${holder.proc.exitCode ?? holder.proc.signalCode})`,
        );
      } else if (Date.now() - holder.started > HOLDER_READY_MS) {
        return fail(holder, `the sandbox network did not start within ${HOLDER_READY_MS} ms`);
      } else {
        return undefined;
      }
    }
    if (holder.namespaces) {
      // Handed to nsenter as its own 3 and 4: Garuda's /proc/<pid>/fd is root's (not dumpable, processGuards.ts)
      return {
        prefix: [
          options.nsenter,
          "--user=/proc/self/fd/3",
          "--net=/proc/self/fd/4",
          "--preserve-credentials",
          "--",
          "/bin/sh",
          "-c",
          CLOSE_NAMESPACE_FDS,
          "garuda-join",
        ],
        fds: [holder.namespaces.user, holder.namespaces.net],
      };
    }
    const pid = holder.pid as number;
    if (ended(holder) || nsIno(pid, "net") !== holder.netIno) {
      return fail(holder, "the sandbox network's holder has ended");
    }
    return {
      prefix: [
        options.nsenter,
        `--user=/proc/${pid}/ns/user`,
        `--net=/proc/${pid}/ns/net`,
        "--preserve-credentials",
        "--",
      ],
    };
  }

  function holderStderr(holder: Holder): string {
    return textOf(join(holder.dir, "stderr")).trim();
  }

  function fail(holder: Holder, error: string): JoinResult {
    holder.error = error;
    end(holder);
    return { error };
  }

  /** The holder's process and folder (a made network lives on in its descriptors). */
  function endProcess(holder: Holder): void {
    try {
      holder.proc.stdin.end();
      holder.proc.kill("SIGKILL");
    } catch {
      // already gone
    }
    rmSync(holder.dir, { recursive: true, force: true });
  }

  function end(holder: Holder): void {
    holder.listener?.stop();
    holder.listener = undefined;
    if (holder.namespaces) {
      closeSync(holder.namespaces.user);
      closeSync(holder.namespaces.net);
      holder.namespaces = undefined;
    }
    endProcess(holder);
  }

  /** A network that commands can still join: made (its descriptors), or a bridge that has not ended. */
  const usable = (holder: Holder) =>
    !holder.error && (holder.namespaces !== undefined || holder.pid === undefined || !ended(holder));

  /** The holder for this socket; a new one when there is none, or the last one failed or ended (commands still in its namespace keep it). */
  function holderFor(socketPath: string): Holder | undefined {
    if (closed) return undefined;
    const current = holders.get(socketPath);
    if (current && usable(current)) return current;
    if (current) end(current);
    const fresh = spawnHolder(socketPath);
    holders.set(socketPath, fresh);
    return fresh;
  }

  /** A holder that failed is dropped, so the next command tries again; its error goes to this command. */
  function settle(socketPath: string, holder: Holder, result: JoinResult): JoinResult {
    if ("error" in result && holders.get(socketPath) === holder) holders.delete(socketPath);
    return result;
  }

  /** One step of waiting: the result, or undefined to look again after POLL_MS. */
  function step(socketPath: string): JoinResult | undefined {
    const holder = holderFor(socketPath);
    if (!holder) return { error: "the session has ended" };
    const result = check(holder, socketPath);
    if (result === "retry") {
      holders.delete(socketPath);
      return undefined;
    }
    return result && settle(socketPath, holder, result);
  }

  return {
    async ready(socketPath) {
      for (;;) {
        const result = step(socketPath);
        if (result) return result;
        await Bun.sleep(POLL_MS);
      }
    },
    readySync(socketPath) {
      for (;;) {
        const result = step(socketPath);
        if (result) return result;
        Bun.sleepSync(POLL_MS);
      }
    },
    async close() {
      closed = true;
      const all = [...holders.values()];
      holders.clear();
      for (const holder of all) end(holder);
      await Promise.all(all.map((holder) => holder.proc.exited));
    },
  };
}
