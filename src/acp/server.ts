// The ACP agent (protocol version 1, stable methods only): initialize, authenticate,
// session/new, session/prompt, session/cancel, session/set_mode. One Runtime per ACP session,
// built by the caller's prepare() (the configuration is read again for every session). Only the
// SDK and this folder's small modules load before the first session/new; the core loads then.
// Nothing here writes stdout or starts a process: the SDK writes the protocol to `output`.
import { randomUUID } from "node:crypto";
import { statSync } from "node:fs";
import { isAbsolute } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import type { Approver, Mode } from "../permission/types.ts";
import type { StopReason } from "../runtime/events.ts";
import type { Runtime } from "../runtime/runtime.ts";
import { oneLine } from "../text/visible.ts";
import { VERSION } from "../version.ts";
import { AcpApprover } from "./approver.ts";
import { ControlUpdates } from "./controlUpdates.ts";
import { builtinCommands, runCommand } from "./commands.ts";
import { configOptions, MODES, sessionModes, setConfigOption } from "./configOptions.ts";
import { wantsNotices } from "./notices.ts";
import { promptText } from "./prompt.ts";
import { type ClientFeatures, SessionMapper } from "./sessionMapper.ts";
import { wantsTerminalOutput } from "./terminalOutput.ts";
import { KnownCalls, SessionChannel } from "./updates.ts";
import { usageUpdate } from "./usage.ts";

/** After a stop, how long running calls may take to report (more than the executor's 2 s kill grace). */
export const SETTLE_MS = 3_000;

export { MODES };

const STOP_REASONS: Readonly<Record<StopReason, acp.StopReason>> = {
  done: "end_turn",
  max_tokens: "max_tokens",
  refusal: "refusal",
  max_steps: "max_turn_requests",
  token_budget: "max_turn_requests",
  repeated_calls: "max_turn_requests",
  cancelled: "cancelled",
};

/**
 * Why a turn stopped short, for the user: max_turn_requests alone does not say whether "go on"
 * helps. Editors show stopReason differently (or not at all), so Garuda says it as a notice.
 */
const STOP_NOTES: Partial<Record<StopReason, string>> = {
  max_steps: "The turn reached its step limit. Say “go on” to continue.",
  token_budget: "This session has used its token budget, so Garuda does not call the model again in it. Start a new thread to go on.",
  repeated_calls: "The model made the same call several times in a row, so the turn was stopped. Say what to do differently, or “go on”.",
};

export interface PrepareRequest {
  /** The session's project folder: absolute, an existing folder. */
  cwd: string;
  approver: Approver;
}

export interface AcpServerOptions {
  /** Builds one session's Runtime; throws SetupRequiredError or ConfigError with a message for the user. */
  prepare(request: PrepareRequest): Promise<Runtime>;
  /** How an editor with the older Terminal Auth form runs the setup: this binary and `acp setup`. */
  setup: { command: string; args: string[] };
  platform?: NodeJS.Platform;
  /** Native Windows: the message that says to use WSL; every session/new fails with it. */
  unsupported?: string;
  settleMs?: number;
  /** The longest message read (default: the SDK's 32 MiB); a longer line is refused, not fatal. */
  maxMessageBytes?: number;
  /** Diagnostics for stderr (the editor's log). */
  log?: (text: string) => void;
}

export interface AcpServer {
  /** Resolves when the connection ends (stdin closed, or the output failed). */
  readonly closed: Promise<void>;
  /** Stops every turn, closes every runtime (each executor kills its processes), ends the connection. */
  shutdown(): Promise<void>;
}

export interface AcpStreams {
  input: ReadableStream<Uint8Array>;
  output: WritableStream<Uint8Array>;
}

function initializeResponse(params: acp.InitializeRequest, options: AcpServerOptions): acp.InitializeResponse {
  const caps = params.clientCapabilities;
  const legacy = caps?._meta?.["terminal-auth"] === true;
  const terminal = (caps?.auth?.terminal === true || legacy) && (options.platform ?? process.platform) !== "win32";
  const authMethods: acp.AuthMethod[] = [];
  if (terminal) {
    authMethods.push({
      type: "terminal",
      id: "garuda-setup",
      name: "Set up Garuda",
      description: "Choose a model and enter its API key.",
      args: ["setup"],
      ...(legacy && { _meta: { "terminal-auth": { command: options.setup.command, args: options.setup.args, label: "Set up Garuda" } } }),
    });
  }
  return {
    protocolVersion: acp.PROTOCOL_VERSION,
    agentInfo: { name: "garuda", title: "Garuda", version: VERSION },
    // Only what is on: ACP's default for a missing field is off, and some clients (agent-shell)
    // list a field that is present as supported even when it is false.
    agentCapabilities: { promptCapabilities: { embeddedContext: true } },
    authMethods,
  };
}

const isFolder = (path: string) => {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
};

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** A setup problem as ACP sees it: no model or key → auth required (-32000); anything else → its message. */
async function setupError(error: unknown): Promise<acp.RequestError> {
  const { SetupRequiredError } = await import("../config/errors.ts");
  if (error instanceof SetupRequiredError) return acp.RequestError.authRequired({ missing: error.missing }, error.message);
  return new acp.RequestError(-32603, messageOf(error));
}

/** The runtime's commands and skills as the editor's / menu lists them; undefined when listing failed. */
function commandList(runtime: Runtime, log: (text: string) => void): acp.AvailableCommand[] | undefined {
  try {
    const builtins = builtinCommands();
    const custom = runtime
      .availableCommands()
      // A built-in wins over a custom command of its name (resolveCommand), so the menu lists it once.
      .filter((command) => !builtins.some((builtin) => builtin.name === command.name))
      .map((command) => ({
        name: command.name,
        description: oneLine(command.description),
        ...(command.argumentHint && { input: { hint: oneLine(command.argumentHint) } }),
      }));
    return [...builtins, ...custom];
  } catch (error) {
    log(`garuda acp: listing the commands failed: ${messageOf(error)}`);
    return undefined;
  }
}

/** One ACP session: its runtime, its updates, its questions, and the turn that runs. */
class Session {
  readonly calls = new KnownCalls();
  readonly channel: SessionChannel;
  readonly approver: AcpApprover;
  /** Lines from session/new that wait for the first prompt. */
  readonly notices: string[] = [];
  runtime!: Runtime;
  mapper!: SessionMapper;
  turn: AbortController | undefined;
  controls!: ControlUpdates;
  /** The / menu the editor was last sent (JSON), so a turn that changes it (MCP prompts) re-sends it. */
  advertised: string | undefined;
  /** Log lines already written for this session. */
  readonly #logged = new Set<string>();

  constructor(
    readonly id: string,
    private readonly client: acp.AgentContext,
    private readonly settleMs: number,
    private readonly log: (text: string) => void,
    private readonly features: ClientFeatures,
  ) {
    this.channel = new SessionChannel((update) => client.notify(acp.methods.client.session.update, { sessionId: id, update }));
    this.approver = new AcpApprover({
      sessionId: id,
      channel: this.channel,
      calls: this.calls,
      request: (params, signal) => client.request(acp.methods.client.session.requestPermission, params, { cancellationSignal: signal, stopWaitingOnCancel: true }),
    });
  }

  /**
   * A line for the editor's log, once per session: some editors show every stderr line to the
   * user as an error (acp.el), and a failure that repeats at every turn says nothing new.
   */
  logOnce(text: string): void {
    if (this.#logged.has(text)) return;
    this.#logged.add(text);
    this.log(text);
  }

  attach(runtime: Runtime): void {
    this.runtime = runtime;
    this.mapper = new SessionMapper(this.calls, runtime.root, this.features, { send: (update) => this.channel.send(update), written: () => this.channel.flush() });
    this.controls = new ControlUpdates(runtime, (update) => this.announce(update), (text) => this.logOnce(text));
  }

  /** An update about the session, not a turn: sent whether a prompt runs or not. */
  announce(update: acp.SessionUpdate): void {
    this.client.notify(acp.methods.client.session.update, { sessionId: this.id, update }).catch(() => {});
  }


  #send(updates: acp.SessionUpdate[]): void {
    for (const update of updates) this.channel.send(update);
  }

  #say(text: string): void {
    this.#send(this.mapper.notice(text));
  }

  async prompt(blocks: acp.ContentBlock[], requestSignal: AbortSignal): Promise<acp.PromptResponse> {
    if (this.turn) throw acp.RequestError.invalidRequest(undefined, "A prompt is already running in this session. Wait for it to end, or cancel it.");
    const controller = new AbortController();
    this.turn = controller;
    const abort = () => controller.abort();
    requestSignal.addEventListener("abort", abort, { once: true });
    controller.signal.addEventListener(
      "abort",
      () => {
        this.calls.stop();
        // A command held for a slow editor must not keep the stop waiting.
        this.#send(this.mapper.endTerminals());
      },
      { once: true },
    );
    this.calls.beginTurn();
    this.mapper.beginTurn();
    this.channel.open();
    try {
      return await this.#run(blocks, controller.signal);
    } finally {
      requestSignal.removeEventListener("abort", abort);
      await this.channel.flush();
      this.channel.close();
      this.turn = undefined;
    }
  }

  async #run(blocks: acp.ContentBlock[], signal: AbortSignal): Promise<acp.PromptResponse> {
    const runtime = this.runtime;
    // Calls a stop left open are closed first, in the editor and in the conversation.
    this.#send(this.calls.closeAll().flatMap((call) => this.mapper.cancelled(call)));
    runtime.closeOpenToolCalls();
    for (const text of this.notices.splice(0)) this.#say(text);

    const text = promptText(blocks, runtime.root);
    const command = text.trimStart().startsWith("/") ? runtime.resolveCommand(text) : ({ kind: "prompt", text } as const);
    if (command.kind === "builtin") {
      const reply = await runCommand(runtime, command.name, command.args, signal);
      for (const text of reply.notices) this.#say(text);
      if (reply.text !== "") this.#send([{ sessionUpdate: "agent_message_chunk", content: { type: "text", text: reply.text } }]);
      return { stopReason: signal.aborted ? "cancelled" : "end_turn" };
    }
    if (command.kind === "unknown") {
      const names = runtime.availableCommands().map((c) => `/${c.name}`);
      this.#say(`/${command.name} is not a command of this project. ${names.length > 0 ? `The commands are: ${names.join(", ")}.` : "This project has no custom commands or skills."}`);
      return { stopReason: "end_turn" };
    }

    let reason: StopReason;
    try {
      reason = await runtime.runTurn(command.text, signal, (event) => {
        this.#send(this.mapper.map(event));
        return this.mapper.hold(event);
      });
    } catch (error) {
      if (!signal.aborted) {
        runtime.recordStop("error");
        this.#send(this.calls.closeAll().flatMap((call) => this.mapper.cancelled(call)));
        const { ModelError } = await import("../model/types.ts");
        if (!(error instanceof ModelError)) this.log(`garuda acp: the turn failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
        throw new acp.RequestError(-32603, messageOf(error));
      }
      reason = "cancelled";
    }
    this.#refreshCommands();
    if (reason === "cancelled" || signal.aborted) {
      await this.#settle();
      return { stopReason: "cancelled" };
    }
    const note = STOP_NOTES[reason];
    if (note) this.#say(note);
    return { stopReason: STOP_REASONS[reason] };
  }

  /** MCP servers start at the first turn; their prompts join the / menu then. */
  #refreshCommands(): void {
    const availableCommands = commandList(this.runtime, (text) => this.logOnce(text));
    if (!availableCommands || JSON.stringify(availableCommands) === this.advertised) return;
    this.advertised = JSON.stringify(availableCommands);
    this.#send([{ sessionUpdate: "available_commands_update", availableCommands }]);
  }

  /** After a stop: running calls get up to settleMs to report; each one the stop ended is named. */
  async #settle(): Promise<void> {
    this.calls.stop();
    const ended = this.calls.ended();
    // A search the provider ran inside the answer cannot report after the stop.
    for (const call of ended) if (call.server && this.calls.finish(call.id)) this.#send(this.mapper.cancelled(call));
    await this.calls.settle(this.settleMs);
    this.#send(this.calls.closeAll().flatMap((call) => this.mapper.cancelled(call)));
    if (ended.length === 0) this.#say("the turn was cancelled.");
    for (const call of ended) this.#say(`${call.title} cancelled.`);
  }
}

/** Lines longer than `maxBytes` are dropped and answered (`reject`) instead of ending the connection. */
function boundedLines(input: ReadableStream<Uint8Array>, maxBytes: number, reject: (head: string) => void): ReadableStream<Uint8Array> {
  let parts: Uint8Array[] = [];
  let length = 0;
  /** The start of a line being dropped, to find its id. */
  let head: string | undefined;
  const take = (part: Uint8Array) => {
    if (head !== undefined) return;
    length += part.length;
    parts.push(part);
    if (length <= maxBytes) return;
    const start = new Uint8Array(Math.min(4096, length));
    let at = 0;
    for (const piece of parts) {
      if (at >= start.length) break;
      const slice = piece.subarray(0, start.length - at);
      start.set(slice, at);
      at += slice.length;
    }
    head = new TextDecoder().decode(start);
    parts = [];
  };
  const endLine = (controller: TransformStreamDefaultController<Uint8Array>) => {
    if (head !== undefined) reject(head);
    else for (const part of parts) controller.enqueue(part);
    parts = [];
    length = 0;
    head = undefined;
  };
  return input.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        let start = 0;
        while (start < chunk.length) {
          const newline = chunk.indexOf(10, start);
          const end = newline === -1 ? chunk.length : newline + 1;
          take(chunk.subarray(start, end));
          if (newline !== -1) endLine(controller);
          start = end;
        }
      },
      flush: endLine,
    }),
  );
}

/** The id of a request from the start of its line, when it can be found before its params. */
function leadingId(head: string): string | number | null {
  const match = /"id"\s*:\s*("(?:[^"\\]|\\.){0,200}"|-?\d{1,15})/.exec(head);
  const params = head.indexOf('"params"');
  if (!match || (params !== -1 && params < match.index)) return null;
  return JSON.parse(match[1] as string) as string | number;
}

export function serveAcp(streams: AcpStreams, options: AcpServerOptions): AcpServer {
  const settleMs = options.settleMs ?? SETTLE_MS;
  const maxBytes = options.maxMessageBytes ?? acp.DEFAULT_MAX_MESSAGE_BYTES;
  const log = options.log ?? ((text: string) => console.error(text));
  const sessions = new Map<string, Session>();
  const starting = new Set<Promise<Runtime>>();
  let closing = false;
  /** What the editor's initialize said it takes. */
  let features: ClientFeatures = { terminalOutput: false, notices: false };

  // One writer for the SDK's messages and the answers to refused lines, so lines never interleave.
  const writer = streams.output.getWriter();
  const encoder = new TextEncoder();
  const output = new WritableStream<Uint8Array>({ write: (chunk) => writer.write(chunk) });
  const refuse = (head: string) => {
    const error = acp.RequestError.invalidRequest(undefined, `the message is larger than ${Math.floor(maxBytes / (1024 * 1024))} MiB, the most Garuda reads`);
    const line = JSON.stringify({ jsonrpc: "2.0", id: leadingId(head), error: error.toErrorResponse() });
    writer.write(encoder.encode(`${line}\n`)).catch(() => {});
  };
  const input = boundedLines(streams.input, maxBytes, refuse);

  const session = (id: string): Session => {
    const found = sessions.get(id);
    if (!found) throw acp.RequestError.sessionNotFound(id);
    return found;
  };

  const app = acp
    .agent({ name: "garuda" })
    .onRequest(acp.methods.agent.initialize, ({ params }) => {
      features = { terminalOutput: wantsTerminalOutput(params.clientCapabilities), notices: wantsNotices(params.clientCapabilities) };
      return initializeResponse(params, options);
    })
    .onRequest(acp.methods.agent.authenticate, () => ({}))
    .onRequest(acp.methods.agent.session.new, async ({ params }) => {
      if (closing) throw new acp.RequestError(-32603, "Garuda is shutting down.");
      if (options.unsupported) throw new acp.RequestError(-32603, options.unsupported);
      const cwd = params.cwd;
      if (!isAbsolute(cwd) || !isFolder(cwd)) throw acp.RequestError.invalidParams({ cwd }, `cwd must be an absolute path to an existing folder, not "${cwd}"`);
      const id = randomUUID();
      const created = new Session(id, connection.client, settleMs, log, features);
      const preparing = options.prepare({ cwd, approver: created.approver });
      starting.add(preparing);
      let runtime: Runtime;
      try {
        runtime = await preparing;
      } catch (error) {
        throw await setupError(error);
      } finally {
        starting.delete(preparing);
      }
      if (closing) {
        await runtime.close();
        throw new acp.RequestError(-32603, "Garuda is shutting down.");
      }
      created.attach(runtime);
      const servers = params.mcpServers.map((server) => oneLine(server.name));
      if (servers.length > 0) {
        created.notices.push(
          `the editor's MCP servers (${servers.join(", ")}) are not started: Garuda does not run an editor's MCP servers in this version. Its own servers (~/.garuda/mcp.json and the project's .garuda/mcp.json) work as in the terminal.`,
        );
      }
      sessions.set(id, created);
      // After the response is written: the editor must know the session before its updates.
      setImmediate(() => {
        sendCommands(created);
        if (sessions.has(id)) created.announce(usageUpdate(runtime.controls.usage));
      });
      // Only the modes the team policy allows are offered; the config options say them again.
      return { sessionId: id, modes: sessionModes(runtime), configOptions: configOptions(runtime, (text) => created.logOnce(text)) };
    })
    .onRequest(acp.methods.agent.session.prompt, ({ params, signal }) => session(params.sessionId).prompt(params.prompt, signal))
    .onNotification(acp.methods.agent.session.cancel, ({ params }) => {
      sessions.get(params.sessionId)?.turn?.abort();
    })
    .onRequest(acp.methods.agent.session.setMode, async ({ params }) => {
      const target = session(params.sessionId);
      const mode = MODES.find((m) => m.id === params.modeId)?.id as Mode | undefined;
      if (!mode) throw acp.RequestError.invalidParams({ modeId: params.modeId }, `unknown mode "${params.modeId}"; the modes are ${MODES.map((m) => m.id).join(" and ")}`);
      const refusal = await target.controls.quietly("mode", () => target.runtime.setMode(mode));
      if (refusal !== undefined) throw acp.RequestError.invalidParams({ modeId: params.modeId }, refusal);
      return {};
    })
    .onRequest(acp.methods.agent.session.setConfigOption, async ({ params }) => {
      const target = session(params.sessionId);
      // The mode option and the session modes are one setting: the older API hears of it.
      await target.controls.quietly("config", () => setConfigOption(target.runtime, params));
      return { configOptions: configOptions(target.runtime, (text) => target.logOnce(text)) };
    });

  const connection = app.connect(acp.ndJsonStream(output, input, { maxMessageBytes: maxBytes + 1024 }));

  function sendCommands(target: Session): void {
    if (!sessions.has(target.id)) return;
    const availableCommands = commandList(target.runtime, (text) => target.logOnce(text));
    if (!availableCommands) return;
    target.advertised = JSON.stringify(availableCommands);
    connection.client
      .notify(acp.methods.client.session.update, { sessionId: target.id, update: { sessionUpdate: "available_commands_update", availableCommands } })
      .catch(() => {});
  }

  let shuttingDown: Promise<void> | undefined;
  const shutdown = () => {
    shuttingDown ??= (async () => {
      closing = true;
      for (const open of sessions.values()) open.turn?.abort();
      const late = [...starting].map((preparing) => preparing.then((runtime) => runtime.close(), () => {}));
      const runtimes = [...sessions.values()].map((open) => open.runtime.close());
      sessions.clear();
      await Promise.allSettled([...runtimes, ...late]);
      connection.close();
      await writer.close().catch(() => {});
    })();
    return shuttingDown;
  };

  return { closed: connection.closed, shutdown };
}
