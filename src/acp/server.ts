// The ACP agent (protocol version 1, stable methods only): initialize, authenticate,
// session/new, session/prompt, session/cancel, session/set_mode, and the history (history.ts:
// session/load, list, resume, close, delete). One Runtime per ACP session,
// built by the caller's prepare() (the configuration is read again for every session). Only the
// SDK and this folder's small modules load before the first session/new; the core loads then.
// Nothing here writes stdout or starts a process: the SDK writes the protocol to `output`.
import { statSync } from "node:fs";
import { isAbsolute } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import type { Approver, Mode } from "../permission/types.ts";
import type { StopReason } from "../core-types/events.ts";
import type { ProjectTrustQuestion } from "../compose/prepare.ts";
import type { Runtime } from "../runtime/runtime.ts";
import { cutText } from "../text/cut.ts";
import { hasHidden, oneLine, visible } from "../text/visible.ts";
import { VERSION } from "../version.ts";
import type { EditorBuffers } from "../tools/editorBuffers.ts";
import { AcpApprover } from "./approver.ts";
import { acpBuffers } from "./buffers.ts";
import { boundedStream, MAX_EDITOR_MESSAGE_BYTES } from "./messageBound.ts";
import type { ClaimedSession } from "../store/sessionCatalog.ts";
import { closeSession, deleteSession, type HistoryHost, listSessions, loadSession, resumeSession } from "./history.ts";
import { EditorProjectTrust } from "./projectTrust.ts";
import { promptImages, promptText } from "./prompt.ts";
import { promptBlocks } from "./promptBlocks.ts";
import { STOP_NOTES, stopLines } from "./stopNotes.ts";
import { EventMapper, KnownCalls, SessionChannel } from "./updates.ts";
import { ControlUpdates } from "./controlUpdates.ts";
import { builtinCommands, runCommand } from "./commands.ts";
import { configOptions, MODES, sessionModes, setConfigOption } from "./configOptions.ts";
import { wantsNotices } from "./notices.ts";
import { type ClientFeatures, SessionMapper } from "./sessionMapper.ts";
import { wantsTerminalOutput } from "./terminalOutput.ts";
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

export interface PrepareRequest {
  /** The session's project folder: absolute, an existing folder. */
  cwd: string;
  /** The editor's other workspace folders (session/new additionalDirectories), as given: prepare checks them. */
  additionalDirectories: string[];
  approver: Approver;
  /** The session's id, which is its file's: new for session/new, the session's own for load and resume. */
  sessionId: string;
  /** session/load and session/resume: the session to continue, locked and read (the runtime then owns it). */
  resume?: ClaimedSession & { damageShown?: boolean };
  /** The mode to start in (a continued session's last one; a session prepared again after a yes keeps the editor's). Default: build. */
  mode?: Mode;
  /** The editor's unsaved buffers, when it offers fs/read_text_file. */
  buffers?: EditorBuffers;
  /** The first-run questions (prepareRuntime's projectTrust): answered at the first prompt (projectTrust.ts). */
  projectTrust: (question: ProjectTrustQuestion) => Promise<boolean>;
  /** The editor's MCP servers (session/new mcpServers), as given: each is a consent at the first prompt. */
  mcpServers: acp.McpServer[];
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
  /** The longest message sent (default MAX_EDITOR_MESSAGE_BYTES); a longer one goes out cut. */
  maxSentBytes?: number;
  /** Diagnostics for stderr (the editor's log). */
  log?: (text: string) => void;
  /** ~/.garuda/sessions: with it, the editor's history (load, list, resume, close, delete). */
  sessionsDir?: string;
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
    agentCapabilities: {
      promptCapabilities: { embeddedContext: true, image: true },
      mcpCapabilities: { http: true },
      ...(options.sessionsDir !== undefined && { loadSession: true }),
      sessionCapabilities: { ...(options.sessionsDir !== undefined && { list: {}, resume: {} }), close: {}, ...(options.sessionsDir !== undefined && { delete: {} }), additionalDirectories: {} },
    },
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
/** An error's message as the editor shows it: visible, and not a page long. */
const shownError = (error: unknown) => visible(cutText(messageOf(error), 4_000));

/** A setup problem as ACP sees it: no model or key → auth required (-32000); anything else → its message. */
async function setupError(error: unknown): Promise<acp.RequestError> {
  const { SetupRequiredError } = await import("../config/errors.ts");
  if (error instanceof SetupRequiredError) return acp.RequestError.authRequired({ missing: error.missing }, error.message);
  return new acp.RequestError(-32603, shownError(error));
}

/** The runtime's commands and skills as the editor's / menu lists them; undefined when listing failed. */
function commandList(runtime: Runtime, log: (text: string) => void): acp.AvailableCommand[] | undefined {
  try {
    const builtins = builtinCommands();
    const custom = runtime
      .availableCommands()
      // A built-in wins over a custom command of its name (resolveCommand), so the menu lists it once.
      .filter((command) => !builtins.some((builtin) => builtin.name === command.name))
      // Names are checked where they are read (a name part, [a-z0-9_-]); one that is not plain is left out all the same.
      .filter((command) => !hasHidden(command.name))
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
  /** The project's settings and hooks waiting for a yes, and the answers given. */
  readonly trust = new EditorProjectTrust();
  /** Prepares this session's runtime again (after a yes to the project's settings). */
  reprepare!: (mode: Mode) => Promise<Runtime>;
  /** session/close or shutdown came: a runtime prepared again late is closed, not attached. */
  ended = false;
  runtime!: Runtime;
  mapper!: SessionMapper;
  turn: AbortController | undefined;
  /** The prompt request that runs, so close() can wait for its answer. */
  running: Promise<unknown> | undefined;
  controls!: ControlUpdates;
  /** The / menu the editor was last sent (JSON), so a turn that changes it (MCP prompts) re-sends it. */
  advertised: string | undefined;
  /** Log lines already written for this session. */
  readonly #logged = new Set<string>();
  readonly #notify: (update: acp.SessionUpdate) => Promise<void>;

  constructor(
    readonly id: string,
    private readonly client: acp.AgentContext,
    private readonly settleMs: number,
    private readonly log: (text: string) => void,
    private readonly features: ClientFeatures,
  ) {
    this.#notify = (update) => client.notify(acp.methods.client.session.update, { sessionId: id, update });
    this.channel = new SessionChannel(this.#notify);
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
    this.controls = new ControlUpdates(runtime, (update) => this.announceUpdate(update), (text) => this.logOnce(text));
  }

  /** An update about the session, not a turn: sent whether a prompt runs or not. */
  announceUpdate(update: acp.SessionUpdate): void {
    this.client.notify(acp.methods.client.session.update, { sessionId: this.id, update }).catch(() => {});
  }


  #send(updates: acp.SessionUpdate[]): void {
    for (const update of updates) this.channel.send(update);
  }

  get busy(): boolean {
    return this.turn !== undefined;
  }

  /** Sends a replay now (no prompt runs), all of it written before this resolves. */
  async replay(updates: acp.SessionUpdate[]): Promise<void> {
    this.channel.open();
    try {
      this.#send(updates);
      await this.channel.flush();
    } finally {
      if (!this.turn) this.channel.close();
    }
  }

  /** session/close: the turn stops as on session/cancel, the runtime closes (its executor kills what runs). */
  async close(): Promise<void> {
    this.ended = true;
    this.turn?.abort();
    await this.runtime.close();
    await this.running?.catch(() => {});
  }

  #say(text: string): void {
    this.#send(this.mapper.notice(text));
  }

  /**
   * A line the user must see now, in a prompt or between prompts (a mode switch stopped a
   * process): between prompts it goes straight to the editor as a message of its own.
   */
  announce(text: string): void {
    if (this.channel.isOpen) {
      this.#say(text);
      return;
    }
    this.mapper.beginTurn();
    for (const update of this.mapper.notice(text)) this.#notify(update).catch(() => {});
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
    const running = this.#run(blocks, controller.signal);
    this.running = running;
    try {
      return await running;
    } finally {
      requestSignal.removeEventListener("abort", abort);
      // The history's time of the session: after every turn that wrote to its file.
      if (this.runtime.session) this.channel.send({ sessionUpdate: "session_info_update", updatedAt: new Date().toISOString() });
      await this.channel.flush();
      this.channel.close();
      this.turn = undefined;
      this.running = undefined;
    }
  }

  /**
   * The project's settings (or hooks) asked about, once, at the first prompt; after a yes the
   * runtime is prepared again with them (nothing has run in it yet). False: the session ended.
   */
  async #askProjectTrust(signal: AbortSignal): Promise<boolean> {
    if (!this.trust.waiting) return true;
    const { yes, lines } = await this.trust.ask(this.approver, signal);
    for (const text of lines) this.notices.push(text);
    if (!yes || signal.aborted) return !this.ended;
    const fresh = await this.reprepare(this.runtime.mode);
    if (this.ended) {
      await fresh.close();
      return false;
    }
    this.attach(fresh);
    this.mapper.beginTurn();
    return true;
  }

  async #run(blocks: acp.ContentBlock[], signal: AbortSignal): Promise<acp.PromptResponse> {
    if (!(await this.#askProjectTrust(signal))) return { stopReason: "cancelled" };
    if (signal.aborted) return { stopReason: "cancelled" };
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
      const { images, refused } = promptImages(blocks);
      for (const line of refused) this.#say(line);
      reason = await runtime.runTurn(
        command.text,
        signal,
        (event) => {
          this.#send(this.mapper.map(event));
          return this.mapper.hold(event);
        },
        promptBlocks(blocks),
        images,
      );
    } catch (error) {
      if (!signal.aborted) {
        runtime.recordStop("error");
        this.#send(this.calls.closeAll().flatMap((call) => this.mapper.cancelled(call)));
        const { ModelError } = await import("../model/types.ts");
        if (!(error instanceof ModelError)) this.log(`garuda acp: the turn failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
        throw new acp.RequestError(-32603, shownError(error));
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
    for (const line of stopLines(ended.map((call) => call.title))) this.#say(line);
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
  /** What the client said it can do (initialize): fs.readTextFile lets the core read unsaved buffers. */
  let clientCapabilities: acp.ClientCapabilities | undefined;
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
      clientCapabilities = params.clientCapabilities;
      features = { terminalOutput: wantsTerminalOutput(params.clientCapabilities), notices: wantsNotices(params.clientCapabilities) };
      return initializeResponse(params, options);
    })
    .onRequest(acp.methods.agent.authenticate, () => ({}))
    .onRequest(acp.methods.agent.session.new, async ({ params }) => {
      const cwd = params.cwd;
      if (!isAbsolute(cwd) || !isFolder(cwd)) throw acp.RequestError.invalidParams({ cwd: oneLine(cwd, 500) }, `cwd must be an absolute path to an existing folder, not "${oneLine(cwd, 500)}"`);
      // The session's id is its file's, so the history and `garuda --resume <id>` know it.
      const { newSessionId } = await import("../store/sessionFile.ts");
      const created = await startSession({ id: newSessionId(), cwd, mcpServers: params.mcpServers, additionalDirectories: params.additionalDirectories ?? [] });
      started(created);
      return { sessionId: created.id, ...answer(created) };
    })
    .onRequest(acp.methods.agent.session.load, ({ params }) => loadSession(historyHost(), params))
    .onRequest(acp.methods.agent.session.resume, ({ params }) => resumeSession(historyHost(), params))
    .onRequest(acp.methods.agent.session.list, ({ params }) => listSessions(historyHost(), params))
    .onRequest(acp.methods.agent.session.close, ({ params }) => closeSession(historyHost(), params))
    .onRequest(acp.methods.agent.session.delete, ({ params }) => deleteSession(historyHost(), params))
    .onRequest(acp.methods.agent.session.prompt, ({ params, signal }) => session(params.sessionId).prompt(params.prompt, signal))
    .onNotification(acp.methods.agent.session.cancel, ({ params }) => {
      sessions.get(params.sessionId)?.turn?.abort();
    })
    .onRequest(acp.methods.agent.session.setMode, async ({ params }) => {
      const target = session(params.sessionId);
      const mode = MODES.find((m) => m.id === params.modeId)?.id as Mode | undefined;
      if (!mode) throw acp.RequestError.invalidParams({ modeId: oneLine(params.modeId, 100) }, `unknown mode "${oneLine(params.modeId, 100)}"; the modes are ${MODES.map((m) => m.id).join(" and ")}`);
      const { refusal, notices } = await target.controls.quietly("mode", () => target.runtime.setMode(mode));
      if (refusal !== undefined) throw acp.RequestError.invalidParams({ modeId: oneLine(params.modeId, 100) }, visible(refusal));
      for (const text of notices) target.announce(text);
      return {};
    })
    .onRequest(acp.methods.agent.session.setConfigOption, async ({ params }) => {
      const target = session(params.sessionId);
      // The mode option and the session modes are one setting: the older API hears of it.
      const notices = await target.controls.quietly("config", () => setConfigOption(target.runtime, params));
      for (const text of notices) target.announce(text);
      return { configOptions: configOptions(target.runtime, (text) => target.logOnce(text)) };
    });

  const connection = app.connect(boundedStream(acp.ndJsonStream(output, input, { maxMessageBytes: maxBytes + 1024 }), options.maxSentBytes ?? MAX_EDITOR_MESSAGE_BYTES, log));

  /** Builds a session's runtime (new, or continuing `resume`) and serves it. */
  async function startSession(request: {
    id: string;
    cwd: string;
    mcpServers: readonly acp.McpServer[];
    additionalDirectories?: readonly string[];
    resume?: PrepareRequest["resume"];
    mode?: Mode;
  }): Promise<Session> {
    if (closing) throw new acp.RequestError(-32603, "Garuda is shutting down.");
    if (options.unsupported) throw new acp.RequestError(-32603, options.unsupported);
    const created = new Session(request.id, connection.client, settleMs, log, features);
    const buffers = clientCapabilities?.fs?.readTextFile === true ? acpBuffers(request.id, connection.client) : undefined;
    const base = {
      cwd: request.cwd,
      additionalDirectories: [...(request.additionalDirectories ?? [])],
      mcpServers: [...request.mcpServers],
      ...(buffers && { buffers }),
      approver: created.approver,
      projectTrust: created.trust.answer,
      sessionId: request.id,
    };
    // After a yes to the project's settings: the runtime is made again with them. The old one lets
    // go of the session file first (one writer per file), and the new one continues it if it exists.
    created.reprepare = async (mode) => {
      await created.runtime.close();
      const { claimSession, findSessionFile } = await import("../store/sessionCatalog.ts");
      const file = options.sessionsDir !== undefined ? findSessionFile(options.sessionsDir, request.id) : undefined;
      return options.prepare({ ...base, mode, ...(file !== undefined && { resume: claimSession(file) }) });
    };
    const preparing = options.prepare({ ...base, ...(request.resume && { resume: request.resume }), ...(request.mode && { mode: request.mode }) });
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
    sessions.set(request.id, created);
    return created;
  }

  /** After the response is written: the editor must know the session before its updates. */
  function started(target: Session): void {
    setImmediate(() => {
      sendCommands(target);
      if (sessions.has(target.id)) target.announceUpdate(usageUpdate(target.runtime.controls.usage));
    });
  }

  /** What session/new, load and resume answer: only the modes the team policy allows; the config options say them again. */
  function answer(target: Session): acp.LoadSessionResponse {
    return { modes: sessionModes(target.runtime), configOptions: configOptions(target.runtime, (text) => target.logOnce(text)) };
  }

  async function closeOne(id: string): Promise<void> {
    const target = sessions.get(id);
    if (!target) return;
    sessions.delete(id);
    await target.close();
  }

  function historyHost(): HistoryHost {
    if (options.sessionsDir === undefined) throw acp.RequestError.methodNotFound("session history");
    return {
      sessionsDir: options.sessionsDir,
      live: (id) => sessions.get(id),
      start: (request) => startSession(request),
      started: (target) => started(target as Session),
      close: closeOne,
      answer: (target) => answer(target as Session),
    };
  }

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
      for (const open of sessions.values()) {
        open.ended = true;
        open.turn?.abort();
      }
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
