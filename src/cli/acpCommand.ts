// `garuda acp`: Garuda as an agent for editors (Agent Client Protocol over stdio). Stdout carries
// only protocol messages, so protocolOutput() goes first: every other write to stdout lands on
// stderr. The SDK loads before initialize; the core (configuration, runtime, sandbox, model)
// loads at the first session/new. When stdin closes, or on SIGTERM, SIGINT or SIGHUP, every
// runtime closes (each executor kills its processes) and the process exits; the exit handler
// kills anything still left. `garuda acp setup` is the setup that editors run for Terminal Auth.
import { Console } from "node:console";
import { dirname } from "node:path";
import { defineCommand, runCommand } from "citty";
import { ConfigError } from "../errors/configError.ts";
import { createCliContext } from "./context.ts";
import { releaseBinaryPages } from "./process/binaryPages.ts";
import { MemoryTrim } from "./process/memoryTrim.ts";
import { normalJitPolicy } from "./process/jitPolicy.ts";
import { SANDBOX_BRIDGE_COMMAND, selfCommand, unsupportedPlatformMessage } from "./platform.ts";

/** What protocolOutput() needs of a stream: Node's write(chunk, encoding?, callback?). */
export interface WriteTarget {
  write(chunk: unknown, ...rest: unknown[]): boolean;
  on?(event: "error", listener: (error: Error) => void): unknown;
}

/** The console methods that print to stdout (console.write is Bun's). */
const STDOUT_METHODS = [
  "log",
  "info",
  "debug",
  "dir",
  "dirxml",
  "table",
  "count",
  "countReset",
  "group",
  "groupCollapsed",
  "groupEnd",
  "time",
  "timeEnd",
  "timeLog",
] as const;

export interface ProtocolOutput {
  /** The real stdout, for the protocol's messages only. */
  readonly protocol: WritableStream<Uint8Array>;
  /** Puts stdout.write and the console back (tests). */
  restore(): void;
}

/**
 * Keeps the real stdout for the protocol and sends everything else that would print to stdout
 * (stdout.write with all its arguments, console.log and its kin) to stderr, where editors log it.
 */
export function protocolOutput(stdout: WriteTarget, stderr: WriteTarget, target: Console = console): ProtocolOutput {
  const realWrite = stdout.write;
  const write = realWrite.bind(stdout);
  let broken: Error | undefined;
  // A closed pipe (the editor went away) must end the connection, not crash the process.
  stdout.on?.("error", (error) => {
    broken ??= error;
  });
  // Node's write(chunk, encoding?, callback?). Bun ignores the encoding on a pipe, so it is
  // applied here: what reaches stderr is what the caller meant to print.
  stdout.write = (chunk: unknown, encodingOrCallback?: unknown, callback?: unknown) => {
    const encoding = typeof encodingOrCallback === "string" ? encodingOrCallback : undefined;
    const done = typeof encodingOrCallback === "function" ? encodingOrCallback : callback;
    const data =
      typeof chunk === "string" && encoding !== undefined && Buffer.isEncoding(encoding)
        ? Buffer.from(chunk, encoding)
        : chunk;
    return typeof done === "function" ? stderr.write(data, done) : stderr.write(data);
  };

  const errConsole = new Console({
    stdout: stderr as unknown as NodeJS.WritableStream,
    stderr: stderr as unknown as NodeJS.WritableStream,
  });
  const saved = new Map<string, unknown>();
  const methods = target as unknown as Record<string, unknown>;
  for (const name of [...STDOUT_METHODS, "write"]) {
    saved.set(name, methods[name]);
    const replacement =
      name === "write"
        ? (...data: unknown[]) => {
            for (const item of data) stderr.write(item);
          }
        : (errConsole as unknown as Record<string, (...args: unknown[]) => void>)[name]?.bind(errConsole);
    if (replacement) methods[name] = replacement;
  }

  const protocol = new WritableStream<Uint8Array>({
    write: (chunk) =>
      new Promise<void>((resolve, reject) => {
        if (broken) {
          reject(broken);
          return;
        }
        write(chunk, (error?: Error | null) => (error ? reject(error) : resolve()));
      }),
  });
  return {
    protocol,
    restore: () => {
      stdout.write = realWrite;
      for (const [name, method] of saved) methods[name] = method;
    },
  };
}

/**
 * How this program starts itself: the compiled binary, or Bun and the entry file. Bun.main tells
 * them apart in every build (import.meta.dir holds the source folder in a --bytecode build).
 */
function self(): { compiled: boolean; command: string[] } {
  const command = selfCommand(process.execPath, dirname(Bun.main));
  return { compiled: command[1] === SANDBOX_BRIDGE_COMMAND, command };
}

/** How an editor with the older Terminal Auth form runs `garuda acp setup`. */
function setupInvocation(): { command: string; args: string[] } {
  return self().compiled
    ? { command: process.execPath, args: ["acp", "setup"] }
    : { command: process.execPath, args: [Bun.main, "acp", "setup"] };
}

/** The input as a web stream; Bun's own stdin stream starts faster than node's toWeb(). */
function stdinStream(): ReadableStream<Uint8Array> {
  return Bun.stdin.stream();
}

/** How long a shutdown may take before the process exits anyway (the exit handler kills what is left). */
const SHUTDOWN_LIMIT_MS = 5_000;
const SIGNAL_EXIT = { SIGTERM: 143, SIGINT: 130, SIGHUP: 129 } as const;

async function runSetupCommand(rawArgs: string[]): Promise<number> {
  const { setupCommand } = await import("./setupCommand.ts");
  const rest = [...rawArgs];
  rest.splice(rest.indexOf("setup"), 1);
  const { result } = await runCommand(setupCommand, { rawArgs: rest });
  return typeof result === "number" ? result : 0;
}

/** What a session needs of the core, loaded at the first session/new. */
interface CoreModules {
  prepareRuntime: typeof import("../compose/prepare.ts").prepareRuntime;
  managedPolicyPath: typeof import("../config/policy.ts").managedPolicyPath;
}

/**
 * The core, loaded once per process, and the sandbox probe, run once (a failed one is run again
 * at the next session), both at the first session/new: the probe's trial run (a process of its
 * own) starts first and runs while the core loads.
 */
function coreLoader(env: NodeJS.ProcessEnv) {
  let guarded: Promise<void> | undefined;
  let core: Promise<CoreModules> | undefined;
  let probe: Promise<import("../sandbox/probe.ts").SandboxProbe> | undefined;
  // Whatever a shutdown could not end in time dies with the process, and its session folders go;
  // set before the probe starts its trial run.
  const guard = () =>
    (guarded ??= Promise.all([import("../sandbox/processTree.ts"), import("../sandbox/sessionFolders.ts")]).then(
      ([tree, folders]) => {
        const base = folders.sessionFolderBase(env);
        process.on("exit", () => {
          for (const pid of tree.descendants(process.pid)) {
            tree.signalGroup(pid, "SIGKILL");
            tree.signalProcess(pid, "SIGKILL");
          }
          folders.removeProcessFolders(base);
        });
      },
    ));
  const loadCore = () =>
    (core ??= Promise.all([import("../compose/prepare.ts"), import("../config/policy.ts"), guard()]).then(
      ([{ prepareRuntime }, { managedPolicyPath }]) => ({ prepareRuntime, managedPolicyPath }),
    ));
  /** Settles once the probe has started its trial run (or failed before it). */
  let launched: Promise<void> = Promise.resolve();
  const startProbe = () => {
    if (!probe) {
      const loaded = guard().then(() => import("../sandbox/probe.ts"));
      // The trial run only needs a folder to bind.
      probe = loaded.then(({ probeSandbox, trialTmpDir }) => probeSandbox({ env, tmpDir: trialTmpDir() }));
      // Reactions run in the order they were added: this one after probeSandbox has spawned its trial.
      launched = loaded.then(
        () => {},
        () => {},
      );
    }
    return probe;
  };
  return async (): Promise<[CoreModules, import("../sandbox/probe.ts").SandboxProbe]> => {
    const running = startProbe();
    await launched;
    try {
      return await Promise.all([loadCore(), running]);
    } catch (error) {
      if (probe === running) probe = undefined;
      throw error;
    }
  };
}

async function serve(modelFlag: string | undefined): Promise<never> {
  const output = protocolOutput(process.stdout, process.stderr);
  const ctx = createCliContext(process.env);
  const sessionParts = coreLoader(ctx.env);
  const unsupported = unsupportedPlatformMessage(process.platform);
  const setup = setupInvocation();
  const { serveAcp } = await import("../acp/server.ts");

  let startedUp = false;
  /** What the process holds once for every session (processWide.ts), made at the first. */
  let processWide: import("../sandbox/processWide.ts").ProcessWide | undefined;
  /** One session's runtime: the configuration read and checked, then built. */
  const prepare = async ({
    cwd,
    additionalDirectories,
    mcpServers,
    approver,
    asker,
    buffers,
    projectTrust,
    sessionId,
    resume,
    mode,
  }: import("../acp/server.ts").PrepareRequest) => {
    const [[{ prepareRuntime, managedPolicyPath }, probed], { createProcessWide }] = await Promise.all([
      sessionParts(),
      import("../sandbox/processWide.ts"),
    ]);
    processWide ??= createProcessWide({ gitGuardDir: ctx.paths.gitGuard, path: ctx.env.PATH });
    const runtime = await prepareRuntime({
      root: cwd,
      extraRoots: additionalDirectories,
      editorMcpServers: mcpServers,
      ...(buffers && { buffers }),
      paths: ctx.paths,
      env: ctx.env,
      keys: ctx.keys,
      modelFlag,
      managedPolicy: managedPolicyPath(),
      approver,
      ...(asker && { asker }),
      sessionId,
      ...(resume && { resume }),
      projectTrust,
      ...(mode && { mode }),
      selfCommand: self().command,
      probe: probed,
      processWide,
    });
    // Start-up ends with the first session: its turns run on the normal JIT policy (jitPolicy.ts),
    // and the binary's pages start-up mapped are given back (binaryPages.ts).
    normalJitPolicy();
    if (!startedUp) {
      startedUp = true;
      void releaseBinaryPages(processWide.native());
    }
    return runtime;
  };

  // A quiet agent gives back its heap, and what its busiest moment mapped of the binary, as start-up's was.
  const trim = new MemoryTrim({ afterTrim: () => void releaseBinaryPages(processWide?.native()) });
  const server = serveAcp(
    { input: stdinStream(), output: output.protocol },
    {
      prepare,
      setup,
      logout: async () => {
        const { logout } = await import("../config/forgetKeys.ts");
        logout(ctx, modelFlag);
      },
      sessionsDir: ctx.paths.sessions,
      ...(unsupported !== undefined && { unsupported }),
      activity: trim,
      log: (text) => process.stderr.write(`${text}\n`),
    },
  );

  let exiting = false;
  const finish = (code: number) => {
    if (exiting) return;
    exiting = true;
    trim.stop();
    void Promise.race([server.shutdown(), Bun.sleep(SHUTDOWN_LIMIT_MS)]).finally(() => process.exit(code));
  };
  for (const [signal, code] of Object.entries(SIGNAL_EXIT)) process.on(signal, () => finish(code));
  await server.closed;
  finish(0);
  return new Promise<never>(() => {});
}

export const acpCommand = defineCommand({
  meta: {
    name: "acp",
    description:
      "Serve code editors over the Agent Client Protocol on stdio (`garuda acp setup`: the setup editors run).",
  },
  args: {
    model: {
      type: "string",
      alias: "m",
      description: "The model to use (beats GARUDA_MODEL and the models.json default)",
      valueHint: "model",
    },
  },
  async run({ args, rawArgs }) {
    const words = args._;
    if (words[0] === "setup") return runSetupCommand(rawArgs);
    if (words.length > 0) throw new ConfigError(undefined, `Unknown argument "${words[0]}". Use: garuda acp [setup]`);
    return serve(args.model);
  },
});
