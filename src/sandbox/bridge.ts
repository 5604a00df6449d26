// The bridge: runs inside the sandbox's network namespace, where only loopback exists. It listens
// on 127.0.0.1:<port> and relays every connection to the egress proxy's Unix socket (bind-mounted
// in), then runs the command and exits with its status. It is Garuda itself: the compiled binary's
// hidden `__sandbox-bridge` command, or bridgeMain.ts from source.
//
//   <self> --socket <path> --port <n> -- <command…>
//
// This per-command bridge is the fallback for machines without nsenter; where nsenter is there,
// a session's commands share one network namespace served by the egress proxy itself
// (sessionNetwork.ts), made by the same command's other mode (networkChild.ts):
//
//   <self> --make-network --port <n>
import { constants } from "node:os";
import { type RelayEnd, forwardHandlers } from "./relay.ts";
import { messageOf } from "../errors/caught.ts";
import { MAKE_NETWORK, runNetworkChild } from "./networkChild.ts";

export interface BridgeArgs {
  socket: string;
  port: number;
  argv: string[];
}

/** How long the bridge waits for the proxy's socket to answer. */
export const BRIDGE_READY_MS = 2_000;

/** Exit status when the bridge itself fails (the command did not run). */
export const BRIDGE_FAILED = 125;

export function parseBridgeArgs(args: string[]): BridgeArgs {
  const split = args.indexOf("--");
  const options = split < 0 ? args : args.slice(0, split);
  const argv = split < 0 ? [] : args.slice(split + 1);
  let socket: string | undefined;
  let port: number | undefined;
  for (let i = 0; i < options.length; i++) {
    const name = options[i];
    const value = options[++i];
    if (name === "--socket" && value) socket = value;
    else if (name === "--port" && value && /^\d+$/.test(value)) port = Number(value);
    else throw new Error(`unexpected bridge argument ${name ?? ""}`);
  }
  if (!socket || !port || port > 65535 || argv.length === 0) {
    throw new Error(`usage: --socket <path> --port <n> -- <command…>, or ${MAKE_NETWORK} --port <n>`);
  }
  return { socket, port, argv };
}

async function proxyAnswers(socket: string, deadline: number): Promise<boolean> {
  while (Date.now() < deadline) {
    try {
      const probe = await Bun.connect({ unix: socket, socket: { data() {} } });
      probe.end();
      return true;
    } catch {
      await Bun.sleep(20);
    }
  }
  return false;
}

function exitStatus(code: number | null, signal: string | number | null): number {
  if (code !== null) return code;
  const number =
    typeof signal === "number" ? signal : signal ? (constants.signals as Record<string, number>)[signal] : undefined;
  return 128 + (number ?? 0);
}

/** Runs the bridge and the command; resolves to the exit status to leave with. */
export async function runBridge(args: string[]): Promise<number> {
  if (args[0] === MAKE_NETWORK) return runNetworkChild(args.slice(1));
  let parsed: BridgeArgs;
  try {
    parsed = parseBridgeArgs(args);
  } catch (error) {
    process.stderr.write(`garuda sandbox bridge: ${messageOf(error)}\n`);
    return BRIDGE_FAILED;
  }
  const relay = parsed;
  if (!(await proxyAnswers(relay.socket, Date.now() + BRIDGE_READY_MS))) {
    process.stderr.write(
      `garuda sandbox bridge: the egress proxy at ${relay.socket} did not answer within ${BRIDGE_READY_MS} ms\n`,
    );
    return BRIDGE_FAILED;
  }
  const listener = Bun.listen<RelayEnd>({
    hostname: "127.0.0.1",
    port: relay.port,
    allowHalfOpen: true,
    socket: forwardHandlers(relay.socket),
  });
  const child = Bun.spawn(relay.argv, { env: process.env, stdio: ["inherit", "inherit", "inherit"] });
  const forwards = (["SIGTERM", "SIGINT", "SIGHUP"] as const).map(
    (signal) => [signal, () => child.kill(signal)] as const,
  );
  for (const [signal, forward] of forwards) process.on(signal, forward);
  await child.exited;
  for (const [signal, forward] of forwards) process.off(signal, forward);
  listener.stop(true);
  return exitStatus(child.exitCode, child.signalCode);
}
