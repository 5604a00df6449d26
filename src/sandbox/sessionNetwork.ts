// One network namespace per session on Linux: every sandboxed command of an executor that goes
// through the same egress proxy joins one namespace, so a dev server one command starts is
// reachable from the next on localhost, and sessions stay apart (each has its own).
//
// At the session's first networked command Garuda starts ONE short-lived child (networkChild.ts):
//
//   bwrap --unshare-user --unshare-net --die-with-parent … -- <self> --make-network --port <n>
//
// with one end of a socketpair as its descriptor 3. Inside the new namespaces it makes the
// listening socket on 127.0.0.1:<port>, sends it and descriptors of its user and network
// namespaces to Garuda (SCM_RIGHTS), and exits. Garuda awaits that exit without blocking, then
// takes the message, which is queued by then (recvmsg with MSG_DONTWAIT: nothing waits), checks
// it (below), keeps the namespace descriptors (close-on-exec) and hands the listening socket to
// the egress proxy, which accepts on it itself (EgressProxy.serve): every connection of every
// command of the session meets the proxy's checks in Garuda, and no process stays for it.
//
// A command joins with util-linux's nsenter through Garuda's descriptors, given to it as its 3
// and 4 (Garuda's own /proc/<pid>/fd is root's: it is not dumpable), then closes them and starts
// bwrap as before — every mount, the PID namespace, --disable-userns and the limits — only
// without --unshare-net:
//
//   [cgroup join] nsenter --user=/proc/self/fd/3 --net=/proc/self/fd/4 --preserve-credentials -- \
//     /bin/sh -c 'exec 3<&- 4<&- "$@"' garuda-join bwrap … -- shell
//
// nsenter and sh exec (no fork), so the job's pid is still bwrap's and job.ts ends commands as
// before. The namespace ends with the executor (close() closes the descriptors) and with Garuda
// however it ends: the kernel closes them, also after SIGKILL, and the commands in it end by their
// own parent-death signal. The child has --die-with-parent too.
//
// A command must never land in the host's network: the namespaces received are checked not to be
// Garuda's own, the network namespace to be owned by the user namespace received (NS_GET_USERNS),
// and the listening socket to belong to that network namespace (SIOCGSKNS). A descriptor names
// one namespace for as long as it is open (no pid that could be reused).
import { closeSync, fstatSync, statSync } from "node:fs";
import { messageOf } from "../errors/caught.ts";
import { type FsView, byDepth, realFs } from "./fsView.ts";
import { isInside } from "../files/isInside.ts";
import type { Native } from "./native.ts";
import { MAKE_NETWORK } from "./networkChild.ts";

/** The nsenter programs looked for, in order: system paths only, never PATH (which a project can put first). */
const NSENTER_PATHS = ["/usr/bin/nsenter", "/bin/nsenter", "/usr/sbin/nsenter", "/sbin/nsenter"];

/** How long the child may take to make the network (it is a Bun start: ~30 ms here). */
export const NETWORK_CHILD_MS = 10_000;

export function findNsenter(
  exists: (path: string) => boolean = (path) => statSync(path, { throwIfNoEntry: false })?.isFile() ?? false,
): string | undefined {
  return NSENTER_PATHS.find(exists);
}

export interface Stoppable {
  stop(): void;
}

export interface SessionNetworkOptions {
  bwrap: string;
  nsenter: string;
  /** How to start Garuda's bridge command (executor's selfCommand); the child is its --make-network mode. */
  selfCommand: string[];
  /** The listening socket's port inside the namespace. */
  port: number;
  /** The environment the child starts with (no secret is needed by it: only PATH-like basics). */
  env: Record<string, string>;
  /**
   * Serves a listening socket for the proxy at `socketPath` (EgressProxy.serve), or undefined when no proxy here is at
   * that path.
   */
  serve: (socketPath: string, fd: number) => Stoppable | undefined;
  /** The C library (native.ts), loaded at the first network; undefined where none loads. */
  native: () => Native | undefined;
  /** Most time the child may take (default NETWORK_CHILD_MS). */
  childMs?: number;
}

/**
 * Either the argv prefix that enters the session's network, or why it could not start. `fds`: the
 * descriptors the command must get as its 3 and 4 (the namespaces), which the prefix names and
 * closes before it runs anything else.
 */
export type JoinResult = { prefix: string[]; fds: [number, number] } | { error: string };

/**
 * Run by nsenter once it has entered through descriptors 3 and 4: closes them, so nothing in the
 * sandbox holds the namespaces, and execs the rest (bwrap keeps every descriptor it is given).
 */
const CLOSE_NAMESPACE_FDS = 'exec 3<&- 4<&- "$@"';

export interface SessionNetworks {
  /**
   * The network for this proxy socket, made at the first call (concurrent calls share it); never
   * blocks. `hidden`: the paths the session's commands cannot read (sandboxPaths().denyRead),
   * hidden from the network child too, asked for only when the child starts.
   */
  ready(socketPath: string, hidden?: () => string[]): Promise<JoinResult>;
  /** Ends every network (its listening socket and descriptors). */
  close(): Promise<void>;
}

/** A made network: Garuda's descriptors of its namespaces, and the proxy serving its socket. */
interface Made {
  user: number;
  net: number;
  listener: Stoppable;
}

const inode = (fd: number) => fstatSync(fd).ino;

/**
 * bwrap's arguments that hide `paths` over `--ro-bind / /` as a sandboxed command's are hidden (an
 * empty read-only tmpfs over a folder, /dev/null over a file): the child is Garuda's own code, but
 * what it cannot read it cannot hand back, whatever ran in it.
 */
export function hideArgs(paths: readonly string[], fs: FsView = realFs): string[] {
  const args: string[] = [];
  const folders: string[] = [];
  for (const path of [...new Set(paths)].sort(byDepth)) {
    if (folders.some((folder) => isInside(path, folder))) continue; // already under an empty tmpfs
    const kind = fs.kind(path);
    if (kind === "dir") {
      folders.push(path);
      args.push("--tmpfs", path, "--remount-ro", path);
    } else if (kind === "file") args.push("--ro-bind", "/dev/null", path);
  }
  return args;
}

export function createSessionNetworks(options: SessionNetworkOptions): SessionNetworks {
  const networks = new Map<string, Promise<Made | { error: string }>>();
  /** Children still making a network: close() ends them. */
  const children = new Set<{ kill(signal?: number | string): void; exited: Promise<unknown> }>();
  let closed = false;
  const own = { net: statSync("/proc/self/ns/net").ino, user: statSync("/proc/self/ns/user").ino };

  const joinOf = (made: Made): JoinResult => ({
    // Handed to nsenter as its own 3 and 4: Garuda's /proc/<pid>/fd is root's (not dumpable, processGuards.ts)
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
    fds: [made.user, made.net],
  });

  /** The network child (see the header), with `childEnd` as its descriptor 3. */
  const spawnChild = (childEnd: number, hidden: string[]) =>
    Bun.spawn(
      [
        options.bwrap,
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
        ...hideArgs(hidden),
        "--",
        ...options.selfCommand,
        MAKE_NETWORK,
        "--port",
        String(options.port),
      ],
      {
        // Started in "/", as the keeper is: from source, Bun reads bunfig.toml in its working
        // folder and runs its preload, and Garuda's own working folder is the project.
        cwd: "/",
        env: options.env,
        stdio: ["ignore", "ignore", "pipe", childEnd],
        timeout: options.childMs ?? NETWORK_CHILD_MS,
      },
    );

  /** Runs the child and waits for its exit (asynchronously); its stderr, or undefined when it succeeded. */
  async function runChild(childEnd: number, hidden: string[]): Promise<string | undefined> {
    let proc: ReturnType<typeof spawnChild>;
    try {
      proc = spawnChild(childEnd, hidden);
    } finally {
      // Garuda's copy of the child's end: closed, so only the child holds it.
      closeSync(childEnd);
    }
    children.add(proc);
    const [status, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]).finally(() =>
      children.delete(proc),
    );
    if (status === 0) return undefined;
    return (
      stderr.trim() ||
      (proc.signalCode
        ? `it ended by ${proc.signalCode} (more than ${options.childMs ?? NETWORK_CHILD_MS} ms?)`
        : "") ||
      `it exited with status ${status}`
    );
  }

  /** The descriptors received, checked (see the header); closed when they do not pass. */
  function take(native: Native, socket: number): { user: number; net: number; listener: number } {
    const fds = native.receiveFds(socket);
    const closeAll = () => {
      for (const fd of fds) closeSync(fd);
    };
    try {
      if (fds.length !== 3) throw new Error(`the network child sent ${fds.length} descriptors, not 3`);
      const [user, net, listener] = fds as [number, number, number];
      const userIno = inode(user);
      const netIno = inode(net);
      if (netIno === own.net) throw new Error("the sandbox network is Garuda's own network namespace");
      if (userIno === own.user) throw new Error("the sandbox network's user namespace is Garuda's own");
      const owner = native.owningUserNamespace(net);
      const ownerIno = inode(owner);
      closeSync(owner);
      if (ownerIno !== userIno) throw new Error("the sandbox's network namespace is not owned by its user namespace");
      const socketNet = native.socketNamespace(listener);
      const socketNetIno = inode(socketNet);
      closeSync(socketNet);
      if (socketNetIno !== netIno) throw new Error("the listening socket is not in the sandbox's network namespace");
      return { user, net, listener };
    } catch (error) {
      closeAll();
      throw error;
    }
  }

  async function make(socketPath: string, hidden: () => string[]): Promise<Made | { error: string }> {
    const native = options.native();
    if (!native) return { error: "the sandbox network could not be made: no C library could be loaded" };
    let pair: [number, number];
    try {
      pair = native.socketPair();
    } catch (error) {
      return { error: `the sandbox network could not be made: ${messageOf(error)}` };
    }
    const [ours, childEnd] = pair;
    try {
      const failed = await runChild(childEnd, hidden());
      if (failed !== undefined) return { error: `the sandbox network could not be made: ${failed}` };
      const taken = take(native, ours);
      if (closed) {
        for (const fd of [taken.user, taken.net, taken.listener]) closeSync(fd);
        return { error: "the session has ended" };
      }
      let listener: Stoppable | undefined;
      try {
        // Bun.listen owns the socket from here: its stop() closes it.
        listener = options.serve(socketPath, taken.listener);
      } catch (error) {
        listener = undefined;
        closeSync(taken.listener);
        closeSync(taken.user);
        closeSync(taken.net);
        throw error;
      }
      if (!listener) {
        closeSync(taken.listener);
        closeSync(taken.user);
        closeSync(taken.net);
        return { error: `no egress proxy of this session serves ${socketPath}` };
      }
      return { user: taken.user, net: taken.net, listener };
    } catch (error) {
      return { error: `the sandbox network could not be made: ${messageOf(error)}` };
    } finally {
      closeSync(ours);
    }
  }

  function end(made: Made): void {
    made.listener.stop();
    closeSync(made.user);
    closeSync(made.net);
  }

  return {
    async ready(socketPath, hidden = () => []) {
      if (closed) return { error: "the session has ended" };
      let network = networks.get(socketPath);
      if (!network) {
        network = make(socketPath, hidden);
        networks.set(socketPath, network);
      }
      const made = await network;
      if ("error" in made) {
        // Dropped, so the next command tries again; this one gets the error.
        if (networks.get(socketPath) === network) networks.delete(socketPath);
        return made;
      }
      if (closed) return { error: "the session has ended" };
      return joinOf(made);
    },
    async close() {
      closed = true;
      for (const child of children) child.kill("SIGKILL");
      const all = [...networks.values()];
      networks.clear();
      for (const network of all) {
        const made = await network;
        if (!("error" in made)) end(made);
      }
      await Promise.all([...children].map((child) => child.exited));
    },
  };
}
