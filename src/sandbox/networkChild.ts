// The short-lived child that makes a session's sandbox network (sessionNetwork.ts). Garuda starts
// it once per session, as `bwrap --unshare-user --unshare-net --die-with-parent … <self>
// --make-network --port <n>`, with one end of a socketpair as its descriptor 3. Inside the new
// namespaces (loopback only, brought up by bwrap) it opens the user and network namespaces, makes
// the listening socket on 127.0.0.1:<port>, sends the three descriptors to Garuda over
// descriptor 3 (SCM_RIGHTS) and exits: the descriptors keep the namespaces alive in Garuda, and
// no process stays. It is Garuda itself, as the bridge is (the compiled binary's hidden
// `__sandbox-bridge` command, or bridgeMain.ts from source), and takes no secret.
import { closeSync, openSync } from "node:fs";
import { messageOf } from "../errors/caught.ts";
import { openNative } from "./native.ts";

/** The first argument of the bridge command that runs this instead (bridge.ts). */
export const MAKE_NETWORK = "--make-network";

/** The descriptor Garuda's end of the socketpair is given as. */
export const HANDOVER_FD = 3;

/** Exit status when the network could not be made; what went wrong is on stderr. */
export const NETWORK_CHILD_FAILED = 125;

/** `--port <n>`, or undefined when the arguments are anything else. */
export function parseNetworkChildArgs(args: string[]): number | undefined {
  if (args.length !== 2 || args[0] !== "--port" || !/^\d{1,5}$/.test(args[1] ?? "")) return undefined;
  const port = Number(args[1]);
  return port > 0 && port <= 65535 ? port : undefined;
}

/** Makes and sends the descriptors; the exit status. */
export function runNetworkChild(args: string[]): number {
  const port = parseNetworkChildArgs(args);
  if (port === undefined) {
    process.stderr.write(`garuda sandbox network: usage: ${MAKE_NETWORK} --port <n>\n`);
    return NETWORK_CHILD_FAILED;
  }
  const opened: number[] = [];
  try {
    const native = openNative();
    if (!native) throw new Error("no C library could be loaded (glibc or musl)");
    opened.push(openSync("/proc/self/ns/user", "r"), openSync("/proc/self/ns/net", "r"));
    opened.push(native.listenLoopback(port));
    native.sendFds(HANDOVER_FD, opened);
    return 0;
  } catch (error) {
    process.stderr.write(`garuda sandbox network: ${messageOf(error)}\n`);
    return NETWORK_CHILD_FAILED;
  } finally {
    for (const fd of opened) closeSync(fd);
  }
}
