// The Runtime: everything one session needs, given to it (Runtime.create) rather than found.
// A front end hands it prompts (runTurn) and gets AgentEvents back; the Runtime keeps the
// conversation, the session file, the mode, the limits and the notices, and runs the loop.
import { realpathSync, statSync } from "node:fs";
import { isAbsolute } from "node:path";
import { garudaPaths } from "../config/paths.ts";
import type { ModelChoices } from "../config/modelChoices.ts";
import type { ModelInfo } from "../model/catalog.ts";
import type { Message, ModelClient, ModelRequest, WebSearchOptions } from "../model/types.ts";
import type { PermissionEngine } from "../permission/engine.ts";
import { MODES } from "../permission/modes.ts";
import type { Approver, Mode } from "../permission/types.ts";
import type { Executor, ProcessExecutor, SandboxAvailability, SandboxSpec } from "../sandbox/types.ts";
import type { AuditSink } from "../store/auditEvents.ts";
import { type ClaimedSession, claimSession } from "../store/sessionCatalog.ts";
import { type SessionStore, createSessionStore } from "../store/sessionFile.ts";
import type { SessionLock } from "../store/sessionLock.ts";
import type { PromptBlock } from "../store/sessionRecords.ts";
import type { PlanState } from "../tools/todo.ts";
import type { Tool } from "../tools/types.ts";
import { modelAt } from "../store/sessionChoices.ts";
import { type CallContext, ToolRegistry } from "../tools/registry.ts";
import { VERSION } from "../version.ts";
import { abortable } from "./abortable.ts";
import { type ChildHost, runChild } from "./child.ts";
import { ChildModels, type SubagentModel } from "./childModels.ts";
import { deferredCommand, type ResolvedCommand, resolveCommand } from "./commands.ts";
import { type CompactionResult, compact } from "./compaction.ts";
import { Conversation } from "./conversation.ts";
import type { AgentEvent, EventSink, StopReason } from "../core-types/events.ts";
import { readInstructions } from "./instructions.ts";
import { DEFAULT_LIMITS, type Limits, runLoop } from "./loop.ts";
import { UsageMeter } from "./meter.ts";
import { SessionControls } from "./sessionControls.ts";
import { attachMentions } from "./mentions.ts";
import type { BufferDeps } from "../tools/editorBuffers.ts";
import { textOnlyNotice } from "../model/images.ts";
import type { ImageBlock } from "../model/types.ts";
import { CUT_NOTE, modeNotes, planStoppedNote, userContent } from "./notes.ts";
import type { BackgroundJobs } from "../tools/processTable.ts";
import type { ToolHooks } from "../tools/toolHooks.ts";
import type { CommandInfo, CommandProvider, Notice, TurnExtensions, UndoResult, UndoStore } from "./services.ts";
import { promptProblem } from "./promptBound.ts";
import { openSession, type SessionState } from "./session.ts";
import { buildSystemPrompt } from "./systemPrompt.ts";
import { resumedState, TitleAndNotices } from "./titleAndNotices.ts";

export interface RuntimeOptions {
  /** The project root; must exist. Its real path is used. */
  root: string;
  /** The editor's unsaved buffers for @-mentions, with the file tools' checks (tools/editorBuffers.ts). */
  buffers?: BufferDeps;
  /** The session's other project folders (an editor's additionalDirectories), real; named in the system prompt. */
  extraRoots?: readonly string[];
  home: string;
  model: { client: ModelClient; info: ModelInfo; thinking?: ModelRequest["thinking"]; webSearch?: WebSearchOptions };
  tools: readonly Tool[];
  engine: PermissionEngine;
  executor: Executor;
  /** Who answers permission questions; absent in headless runs (a question is then a deny). */
  approver?: Approver;
  mode: Mode;
  /** Lower limits from the team policy or settings; defaults: DEFAULT_LIMITS. */
  limits?: Partial<Limits>;
  hooks?: ToolHooks;
  audit?: AuditSink;
  undo?: UndoStore;
  /** Default: session files under ~/.garuda/sessions. false: no session file. */
  sessionStore?: SessionStore | false;
  /** The id of a new session's file (an editor names a session before its first prompt). Default: a new id. */
  sessionId?: string;
  /**
   * Continue a session (its messages, usage and mode): its file, which create() locks and reads,
   * or a session a front end already claimed (claimSession), which the runtime then owns. The
   * lock is held until close(); when another Garuda holds it, create() throws SessionBusyError.
   * `damageShown`: the front end has told the user which damaged lines were skipped.
   */
  resume?: string | (ClaimedSession & { damageShown?: boolean });
  /** Notices from the wiring (ignored project settings …), shown at the first turn. */
  notices?: Notice[];
  commands?: CommandProvider;
  /** Extensions started at the first turn (MCP servers), whose tools join the session's. */
  extensions?: TurnExtensions;
  /** Why a mode may not be used (the team policy's allowedModes), or undefined. Default: every mode may. */
  modeRefusal?: (mode: Mode) => string | undefined;
  /** Whether commands have an OS sandbox (the system prompt, the notice). Default: the executor's. */
  sandboxAvailability?: SandboxAvailability;
  /** The sandbox commands run in, per mode. Default: the executor's own spec, the project read-only in plan mode. */
  sandboxFor?: (mode: Mode) => SandboxSpec | null;
  /**
   * Opens another model for a subagent that asks for one (a custom agent's `model`), under the
   * same rules as the session's: the team policy's allowed models, a provider and a key. Throws
   * with what to do when it cannot. Absent: subagents always run on the session's model.
   */
  modelFor?: (spec: string) => Promise<SubagentModel>;
  /** The session's background processes (process_manager): plan mode stops the ones that can write the project. */
  jobs?: BackgroundJobs;
  /** Runs at close(), after the executor shut down (the egress proxy, the audit log). */
  onClose?: () => Promise<void> | void;
  /**
   * The models of the catalog and models.json, each usable now or not (config/modelChoices.ts),
   * read again at each call. With `modelFor`, the session can switch models (setModel).
   */
  modelChoices?: () => ModelChoices;
  /** The session's plan (the todo tool's state): its changes go out as plan events. */
  plan?: PlanState;
}

/** What a mode switch did: refused (the reason; the mode stays), or done, with what the user must hear. */
export interface ModeSwitch {
  refusal?: string;
  /** Lines for the user (the model hears them at the next turn). */
  notices: string[];
}

export type { SubagentModel } from "./childModels.ts";

function defaultSandbox(executor: Executor, mode: Mode): SandboxSpec | null {
  if (!executor.sandbox.available) return null;
  const spec = (executor as Partial<ProcessExecutor>).spec;
  return typeof spec === "function" ? spec.call(executor, { projectReadOnly: mode === "plan" }) : null;
}

/** A front end's mistake in onEvent must not leave the conversation half-recorded. */
function safeEmit(onEvent: EventSink): EventSink {
  return (event) => {
    try {
      const held = onEvent(event);
      // Only a command's output waits for the front end (EventSink); a failure there frees it.
      if (event.type === "tool_output" && held instanceof Promise) return held.catch(() => {});
    } catch {
      // The event is lost for display; the turn and its records go on.
    }
    return undefined;
  };
}

export class Runtime {
  readonly root: string;
  readonly systemPrompt: string;
  readonly #options: RuntimeOptions;
  #registry: ToolRegistry;
  /** The extensions' tools the registry was last built with. */
  #extensionTools: readonly Tool[] = [];
  readonly #limits: Limits;
  readonly #conversation: Conversation;
  readonly #meter: UsageMeter;
  readonly #session: SessionState;
  /** The model, the effort and the usage, and who watches them (the editor's pickers and meter). */
  readonly controls: SessionControls;
  /** The running turn's emit, for changes made inside it (the plan). */
  #turnEmit: EventSink | undefined;
  readonly #notices: Notice[] = [];
  /** Models subagents asked for (custom agents' `model`). */
  readonly #childModels: ChildModels;
  /** Notes for the model's next user message (a cut answer, an undo). */
  readonly #notes: string[] = [];
  readonly #closing = new AbortController();
  #mode: Mode;
  #lastTurnMode: Mode | undefined;
  #turn: Promise<unknown> | undefined;
  #turnSignal: AbortSignal | undefined;
  #turnOpen = false;
  #lastSteps = 0;
  #closed = false;
  readonly #extras: TitleAndNotices;
  /** The resumed session's file (not what was read of it: the messages are kept, the records go). */
  readonly #resumed: { id: string; file: string } | undefined;

  private constructor(options: RuntimeOptions, root: string, resumed: (ClaimedSession & { damageShown?: boolean }) | undefined) {
    // Not the resumed session's records: a long session is kept once, as its messages.
    const { resume: _read, ...kept } = options;
    this.#options = kept;
    this.root = root;
    this.#mode = options.mode;
    this.#registry = new ToolRegistry(options.tools);
    this.#limits = { ...DEFAULT_LIMITS, ...options.limits };
    const sandbox = options.sandboxAvailability ?? options.executor.sandbox;
    if (!sandbox.available) this.#notices.push({ level: "warning", text: `No OS sandbox: ${sandbox.reason} Every command asks before it runs. ${sandbox.fix}` });
    const instructions = readInstructions(root);
    for (const text of instructions.notes) this.#notices.push({ level: "info", text });
    this.#notices.push(...(options.notices ?? []));
    this.systemPrompt = buildSystemPrompt({ version: VERSION, root, extraRoots: options.extraRoots ?? [], platform: process.platform, arch: process.arch, sandbox, instructions: instructions.files });
    this.#meter = new UsageMeter(this.systemPrompt.length + JSON.stringify(this.#registry.specs()).length);
    this.#childModels = new ChildModels(options.modelFor, (usage, price) => this.#meter.spend(usage, price));
    options.plan?.subscribe((items) => this.#turnEmit?.({ type: "plan", items: items.map((item) => ({ content: item.content, status: item.status })) }));

    let writeFailed = false;
    const onWriteError = (error: Error) => {
      if (writeFailed) return;
      writeFailed = true;
      this.#notices.push({ level: "warning", text: `Writing the session file failed (${error.message}); it may be incomplete.` });
    };
    const store = options.sessionStore === undefined ? createSessionStore({ sessionsDir: garudaPaths(options.home).sessions, onError: onWriteError }) : options.sessionStore;
    this.#resumed = resumed && { id: resumed.id, file: resumed.file };
    this.#conversation = new Conversation(resumed?.data.messages ?? []);
    this.controls = new SessionControls(
      { client: options.model.client, info: options.model.info },
      {
        meter: this.#meter,
        conversation: this.#conversation,
        ...(options.modelChoices && { modelChoices: options.modelChoices }),
        ...(options.modelFor && { modelFor: options.modelFor }),
        turnRunning: () => this.#turn !== undefined,
        closed: () => this.#closed,
        compact: () => this.compact(),
      },
      options.model.thinking,
    );
    const state = resumed ? resumedState(resumed.data) : undefined;
    if (resumed && state) {
      if (state.damage && !resumed.damageShown) this.#notices.push({ level: "warning", text: state.damage });
      // Each response at the price of the model that served it (a session may switch models).
      const records = resumed.data.records;
      const served = modelAt(records);
      const priceOf = this.controls.priceLookup();
      records.forEach((record, index) => {
        const price = priceOf(served[index]);
        if (record.type === "assistant") this.#meter.spend(record.usage, price);
        if (record.type === "compaction" && record.usage) this.#meter.spend(record.usage, price);
      });
      this.#lastTurnMode = state.lastMode;
      this.controls.restore(records);
    }
    this.#extras = new TitleAndNotices(this.#conversation, state);
    this.#session = openSession(store, resumed && { file: resumed.file, lock: resumed.lock }, { root, version: VERSION, model: options.model.info.spec }, options.sessionId);
  }

  /** Builds a Runtime from its services. Reads the project's instruction files once. */
  static create(options: RuntimeOptions): Runtime {
    if (!isAbsolute(options.root)) throw new Error(`The project folder must be an absolute path: ${options.root}`);
    let root: string;
    try {
      root = realpathSync(options.root);
    } catch {
      throw new Error(`The project folder does not exist: ${options.root}`);
    }
    if (!statSync(root).isDirectory()) throw new Error(`The project folder is not a folder: ${options.root}`);
    // Locked before it is read: what the runtime continues from is what the file holds.
    const resumed = typeof options.resume === "string" ? claimSession(options.resume) : options.resume;
    try {
      return new Runtime(options, root, resumed);
    } catch (error) {
      resumed?.lock.release();
      throw error;
    }
  }

  /** The mode the next turn runs in. */
  get mode(): Mode {
    return this.#mode;
  }

  /** The session file: a resumed one from the start, a new one once the first prompt made it. */
  get session(): { id: string; file: string | undefined } | undefined {
    const journal = this.#conversation.journal;
    if (journal) return { id: journal.id, file: journal.file };
    return this.#resumed ? { id: this.#resumed.id, file: this.#resumed.file } : undefined;
  }

  get messages(): readonly Message[] {
    return this.#conversation.messages;
  }

  /** The session's title (from its first prompt), once there is one. */
  get title(): string | undefined {
    return this.#extras.title;
  }

  /**
   * Another handle on the lock of this session's file, for a runtime that takes the session over
   * (the chat's model switch): the lock stays held until every handle is released.
   */
  shareSessionLock(): SessionLock | undefined {
    return this.#session.shareLock();
  }

  /** Tokens used in this session (counted toward the token budget). */
  get tokensUsed(): number {
    return this.#meter.total;
  }

  /**
   * Applies from the next turn. A mode the team policy forbids is refused: the reason, and the
   * mode stays. Plan mode promises that commands cannot write the project, so switching to it
   * stops the background processes that could (resolves once they are gone, with the notice).
   */
  async setMode(mode: Mode): Promise<ModeSwitch> {
    const refusal = this.#options.modeRefusal?.(mode);
    if (refusal !== undefined) return { refusal, notices: [] };
    const changed = mode !== this.#mode;
    this.#mode = mode;
    if (changed) this.controls.emit({ type: "mode", mode });
    return { notices: mode === "plan" ? await this.#stopWriters() : [] };
  }

  /** Stops the background processes that can write the project; the notice for the user, also kept for the model and the audit log. */
  async #stopWriters(): Promise<string[]> {
    const stopped = (await this.#options.jobs?.stopWriters()) ?? [];
    if (stopped.length === 0) return [];
    const text = planStoppedNote(stopped);
    this.#notes.push(text);
    this.#options.audit?.record({ type: "notice", text });
    return [text];
  }

  /** The model the next request uses (controls.setModel switches it). */
  get model(): ModelInfo {
    return this.controls.model.info;
  }

  /** The rules in force and this session's own ("Allow for this session") rules, for /permissions. */
  get permissions(): Pick<PermissionEngine, "rules" | "sessionRules" | "revokeSessionRule"> {
    return this.#options.engine;
  }

  /** The modes this session may switch to. */
  get modes(): Mode[] {
    return MODES.filter((mode) => this.#options.modeRefusal?.(mode) === undefined);
  }

  resolveCommand(text: string): ResolvedCommand {
    return resolveCommand(text, this.#options.commands);
  }

  availableCommands(): CommandInfo[] {
    return this.#options.commands?.list() ?? [];
  }

  /** Notices not shown yet; the next turn sends them as notice events. */
  pendingNotices(): Notice[] {
    return [...this.#notices];
  }

  /**
   * Runs one turn. Resolves with why it ended ("cancelled" when `signal` aborts); a model error
   * rejects after the stop is recorded. `shown`: the prompt as the user sent it, when `prompt`
   * is a rendering of it (an editor's blocks), kept in the session file for a replay. `images`: the prompt's images
   * (an editor's image blocks), sent after its text.
   */
  runTurn(prompt: string, signal: AbortSignal, onEvent: EventSink, shown?: readonly PromptBlock[], images: readonly ImageBlock[] = []): Promise<StopReason> {
    if (this.#closed) return Promise.reject(new Error("This session is closed."));
    if (this.#turn) return Promise.reject(new Error("A turn is already running in this session."));
    // The API refuses an empty text block, and there is nothing to answer: no request at all.
    if (prompt.trim() === "" && images.length === 0) {
      safeEmit(onEvent)({ type: "notice", level: "info", text: "The prompt was empty, so nothing was sent to the model." });
      return Promise.resolve("done");
    }
    const turn = this.#runTurn(prompt, signal, safeEmit(onEvent), shown, images);
    this.#turn = turn;
    const clear = () => {
      this.#turn = undefined;
    };
    turn.then(clear, clear);
    return turn;
  }

  /**
   * The running turn's signal (else the session's): questions raised outside a tool call, such as
   * a sandboxed command's network request, end with the turn that caused them.
   */
  activeSignal(): AbortSignal {
    return this.#turnSignal ?? this.#closing.signal;
  }

  async #runTurn(prompt: string, outer: AbortSignal, show: EventSink, shown: readonly PromptBlock[] | undefined, images: readonly ImageBlock[]): Promise<StopReason> {
    const signal = AbortSignal.any([outer, this.#closing.signal]);
    this.#turnSignal = signal;
    // The turn's notices go into the session file too (a replay shows them). What the front end
    // returns is handed back (a command's output waits on a slow editor).
    this.#extras.beginTurn();
    const emit: EventSink = (event) => {
      const answer = show(event);
      this.#extras.event(event);
      return answer;
    };
    this.#turnEmit = emit;
    try {
      return await this.#turnBody(prompt, signal, emit, shown, images);
    } finally {
      this.#turnSignal = undefined;
      this.#turnEmit = undefined;
      await this.#endUndoTurn(emit);
      this.#extras.endTurn();
    }
  }

  /** Closes the undo point of the turn and shows what the undo store had to say. */
  async #endUndoTurn(emit: (event: AgentEvent) => void): Promise<void> {
    const undo = this.#options.undo;
    if (!undo) return;
    try {
      await undo.endTurn?.();
    } catch {
      // The store reports its own failures through takeNotices.
    }
    for (const text of undo.takeNotices?.() ?? []) emit({ type: "notice", level: "warning", text });
  }

  async #turnBody(prompt: string, signal: AbortSignal, emit: EventSink, given: readonly PromptBlock[] | undefined, images: readonly ImageBlock[]): Promise<StopReason> {
    const typed = prompt;
    for (const notice of this.#notices.splice(0)) {
      emit({ type: "notice", level: notice.level, text: notice.text });
      this.#options.audit?.record({ type: "notice", text: notice.text });
    }
    if (signal.aborted) return "cancelled";
    if (this.#options.extensions) {
      await this.#joinExtensions(this.#options.extensions, signal, emit);
      if (signal.aborted) return "cancelled";
    }
    const deferred = deferredCommand(prompt, this.#options.commands);
    if (deferred) {
      const made = await deferred.command.expand(signal);
      if (signal.aborted) return "cancelled";
      if ("refused" in made) {
        emit({ type: "notice", level: "warning", text: made.refused, refusedCommand: deferred.name });
        this.#options.audit?.record({ type: "notice", text: made.refused });
        return "done";
      }
      prompt = made.text;
    }
    const mode = this.#mode;
    const warn = (text: string) => emit({ type: "notice", level: "warning", text });
    // A build-mode turn still running at the switch may have started more.
    if (mode === "plan") for (const text of await this.#stopWriters()) warn(text);
    this.#session.ensure(this.#conversation, mode, warn);
    if (this.#session.recordedMode !== mode) {
      this.#conversation.record({ type: "mode", mode });
      this.#session.recordedMode = mode;
    }
    this.controls.sync();
    this.#conversation.closeOpenToolCalls();
    if (this.#options.undo) {
      try {
        await abortable(this.#options.undo.beginTurn(), signal);
      } catch (error) {
        if (signal.aborted) return "cancelled";
        warn(`The undo snapshot of this turn failed (${error instanceof Error ? error.message : String(error)}); /undo may not restore it.`);
      }
      // Undo switched off before the turn is said before the model works, not after.
      for (const text of this.#options.undo.takeNotices?.() ?? []) warn(text);
    }
    const previousMode = this.#lastTurnMode;
    const pending = this.#notes.splice(0);
    const notes = [...modeNotes(mode, previousMode), ...pending];
    this.#lastTurnMode = mode;
    const takesImages = this.#options.model.info.images !== false;
    const attached = await attachMentions(prompt, {
      root: this.root,
      home: this.#options.home,
      engine: this.#options.engine,
      mode,
      signal,
      ...(this.#options.approver && { approver: this.#options.approver }),
      ...(this.#options.buffers && { buffers: this.#options.buffers }),
      images: takesImages,
    });
    for (const text of attached.notices) emit({ type: "notice", level: "warning", text });
    if (signal.aborted) return "cancelled";
    // A model the catalog marks as text-only gets none, and the user is told (images.ts).
    if (!takesImages && images.length > 0) emit({ type: "notice", level: "warning", text: textOnlyNotice(images.length, this.#options.model.info.spec) });
    // A prompt of images alone has no text block (the API refuses an empty one).
    const content = [...userContent(prompt, notes).filter((block) => block.type !== "text" || block.text !== ""), ...attached.blocks, ...(takesImages ? images : [])];
    if (content.length === 0) {
      this.#notes.unshift(...pending);
      return "done";
    }
    const tooLarge = promptProblem(content, this.#options.model.info.contextWindow, attached.blocks.length > 0);
    if (tooLarge !== undefined) {
      // Not recorded: the conversation stays as it was, and the notes wait for the next prompt.
      this.#notes.unshift(...pending);
      this.#lastTurnMode = previousMode;
      emit({ type: "notice", level: "warning", text: tooLarge, refusedPrompt: true });
      return "done";
    }
    // The prompt as the user sent it, when the model gets another text (a /command expanded).
    const shown = given ? [...given] : prompt !== typed ? [{ type: "text" as const, text: typed }] : undefined;
    this.#conversation.record({ type: "user", prompt, content, ...(shown && { shown }) });
    this.#extras.promptRecorded(shown ?? typed, emit);
    this.#turnOpen = true;
    const stats = { steps: 0 };
    try {
      // Read at every request: a model switch during the turn applies from the next one.
      const active = () => this.controls.model;
      const request = () => this.#request();
      const result = await runLoop({
        get client() {
          return active().client;
        },
        get request() {
          return request();
        },
        get contextWindow() {
          return active().info.contextWindow;
        },
        get modelMaxTokens() {
          return active().info.maxTokens;
        },
        limits: this.#limits,
        conversation: this.#conversation,
        meter: this.#meter,
        registry: this.#registry,
        calls: this.#callContext(mode, signal, emit),
        emit,
        signal,
        stats,
      });
      if (result.cutOff) this.#notes.push(CUT_NOTE);
      this.#lastSteps = result.steps;
      this.#end(result.stopReason);
      return result.stopReason;
    } catch (error) {
      this.#lastSteps = stats.steps;
      this.#end("error");
      throw error;
    }
  }

  /** Starts (or refreshes) the extensions; a changed tool list means a new registry, from this turn on. */
  async #joinExtensions(extensions: TurnExtensions, signal: AbortSignal, emit: (event: AgentEvent) => void): Promise<void> {
    const notice = (notice: Notice) => {
      emit({ type: "notice", level: notice.level, text: notice.text });
      this.#options.audit?.record({ type: "notice", text: notice.text });
    };
    try {
      const tools = await extensions.beforeTurn(signal, notice);
      if (tools === this.#extensionTools) return;
      this.#registry = new ToolRegistry([...this.#options.tools, ...tools]);
      this.#extensionTools = tools;
    } catch (error) {
      if (!signal.aborted) notice({ level: "warning", text: `Extensions could not start: ${error instanceof Error ? error.message : String(error)}` });
    }
  }

  #request(): Omit<ModelRequest, "messages" | "maxTokens"> {
    const { webSearch, info: first } = this.#options.model;
    return {
      ...this.controls.request(),
      system: this.systemPrompt,
      tools: this.#registry.specs() as ModelRequest["tools"],
      // Web search is the first model's provider's server tool; another provider has none.
      ...(webSearch && this.model.provider === first.provider && { webSearch }),
    };
  }

  #callContext(mode: Mode, signal: AbortSignal, emit: EventSink): CallContext {
    const options = this.#options;
    let snapshotWarned = false;
    const calls: CallContext = {
      root: this.root,
      home: options.home,
      mode,
      signal,
      executor: options.executor,
      sandbox: options.sandboxFor ? options.sandboxFor(mode) : defaultSandbox(options.executor, mode),
      engine: options.engine,
      ...(options.approver && { approver: options.approver }),
      emit,
      beforeWrite: async (paths) => {
        try {
          await options.undo?.snapshot(paths);
        } catch (error) {
          if (snapshotWarned) return;
          snapshotWarned = true;
          emit({ type: "notice", level: "warning", text: `An undo snapshot failed (${error instanceof Error ? error.message : String(error)}); /undo may not restore this change.` });
        }
      },
      ...(options.hooks && { hooks: options.hooks }),
      ...(options.audit && { audit: options.audit }),
    };
    // Subagents share the model, the engine, the approver and the signal; not the subagent capability (no nesting).
    const { model, thinking } = this.#request();
    const active = this.controls.model;
    const host: ChildHost = {
      client: active.client,
      request: { model, ...(thinking !== undefined && { thinking }) },
      contextWindow: active.info.contextWindow,
      modelMaxTokens: active.info.maxTokens,
      limits: this.#limits,
      tokensLeft: () => this.#limits.tokenBudget - this.#meter.total,
      spend: (usage) => this.#meter.spend(usage, active.info.price),
      tool: (name) => this.#registry.get(name),
      toolNames: () => this.#registry.names(),
      calls,
    };
    return { ...calls, subagent: async (task, call) => runChild(task.model ? await this.#childModels.hostFor(host, this.model, task.name, task.model) : host, task, call) };
  }

  #end(reason: string): void {
    if (!this.#turnOpen) return;
    this.#turnOpen = false;
    this.#conversation.record({ type: "end", stopReason: reason, steps: this.#lastSteps });
    this.#options.audit?.record({ type: "stop", reason });
  }

  /** Records how the last turn ended when the front end ended it (an error, an interrupt). Once per turn. */
  recordStop(reason: string): void {
    this.#end(reason);
  }

  /** Gives each tool call of the last response that has no result a synthetic "Cancelled by the user." result. */
  closeOpenToolCalls(): number {
    return this.#conversation.closeOpenToolCalls();
  }

  /** /compact: both stages now. Undefined when there was nothing to compact. */
  async compact(options: { focus?: string; signal?: AbortSignal } = {}): Promise<CompactionResult | undefined> {
    if (this.#turn) throw new Error("A turn is running; compact after it ends.");
    this.#conversation.closeOpenToolCalls();
    const { client, info } = this.controls.model;
    const result = await compact(
      {
        client,
        request: { ...this.#request(), maxTokens: Math.min(this.#limits.maxOutputTokens, info.maxTokens) },
        contextWindow: info.contextWindow,
        conversation: this.#conversation,
        meter: this.#meter,
      },
      { force: true, signal: AbortSignal.any([options.signal ?? new AbortController().signal, this.#closing.signal]), ...(options.focus && { focus: options.focus }) },
    );
    if (result) this.controls.emit({ type: "usage", ...this.controls.usage });
    return result;
  }

  /** /diff: what this session changed in the project. */
  async diff(): Promise<string> {
    const store = this.#options.undo;
    if (!store?.diff) return "Undo is off in this session, so Garuda has no record of its changes.";
    return store.diff();
  }

  /** /undo: the injected undo store restores the files of the last turn; the model hears of it next turn. */
  async undo(): Promise<UndoResult> {
    const store = this.#options.undo;
    if (!store) return { restored: [], removed: [], notes: ["Undo is off in this session."] };
    const result = await store.undoLastTurn();
    const changed = [...result.restored.map((path) => `restored ${path}`), ...result.removed.map((path) => `removed ${path}`)];
    if (changed.length > 0) {
      this.#notes.push(`The user undid the file changes of the last turn (${changed.join(", ")}). Read those files again before relying on what you saw of them.`);
    }
    return result;
  }

  /** Ends the session: stops a running turn, kills every process the executor started, closes the session file. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#closing.abort();
    await this.#turn?.catch(() => {});
    await this.#options.undo?.close?.();
    await this.#options.executor.shutdown();
    this.#session.close(this.#conversation);
    await this.#options.onClose?.();
  }
}
