// The Runtime: everything one session needs, given to it (Runtime.create) rather than found.
// A front end hands it prompts (runTurn) and gets AgentEvents back; the Runtime keeps the
// conversation, the session file, the mode, the limits and the notices, and hands each prompt
// to a turn (turn.ts). A resumed session is claimed and replayed by resume.ts.
import { realpathSync, statSync } from "node:fs";
import { isAbsolute } from "node:path";
import type { EventSink, StopReason } from "../core-types/events.ts";
import type { ModelInfo } from "../model/catalog.ts";
import type { ImageBlock, Message, ModelRequest } from "../model/types.ts";
import type { PermissionEngine } from "../permission/engine.ts";
import { allowedModes } from "./sessionView.ts";
import type { Mode } from "../core-types/mode.ts";
import type { SessionLock } from "../store/sessionLock.ts";
import type { PromptBlock } from "../store/sessionRecords.ts";
import { VERSION } from "../version.ts";
import { ChildModels } from "./childModels.ts";
import { type ResolvedCommand, resolveCommand } from "./commands.ts";
import type { WithheldPredicate } from "../tools/withheldPaths.ts";
import { type CompactionResult, compact } from "./compaction.ts";
import { Conversation } from "./conversation.ts";
import { readInstructions } from "./instructions.ts";
import { DEFAULT_LIMITS, type Limits } from "./loop.ts";
import { UsageMeter } from "./meter.ts";
import { planStoppedNote } from "./notes.ts";
import { claimResume, replayResumed, type ResumeSource } from "./resume.ts";
import type { RuntimeOptions } from "./runtimeOptions.ts";
import { safeEmit } from "./safeEmit.ts";
import type { CommandInfo, Notice, UndoResult } from "./services.ts";
import { openSession, type SessionState } from "./sessionRecording.ts";
import { SessionControls } from "./sessionControls.ts";
import { SessionTools } from "./sessionTools.ts";
import { buildSystemPrompt } from "./systemPrompt.ts";
import { TitleAndNotices } from "./titleAndNotices.ts";
import { Turns } from "./turn.ts";
import { type PutResult, TurnInbox } from "./turnInbox.ts";
import { notTakenNotice, steeringProblem } from "./steering.ts";
import { endUndoTurn } from "./undoTurn.ts";
import { runUserCommand } from "./userCommand.ts";
import type { CallOutcome } from "../tools/registry.ts";
import type { TurnChanges } from "../core-types/turnChanges.ts";
import { RewindError, type RewindPointView, type RewindRequest, type RewindResult, SessionRewinds } from "./rewind.ts";

/** What a mode switch did: refused (the reason; the mode stays), or done, with what the user must hear. */
export interface ModeSwitch {
  refusal?: string;
  /** Lines for the user (the model hears them at the next turn). */
  notices: string[];
}

export class Runtime {
  readonly root: string;
  readonly systemPrompt: string;
  /** Paths the session's file tools never show (RuntimeOptions.withheld); none when not given. */
  readonly withheld: WithheldPredicate | undefined;
  /** The model, the effort and the usage, and who watches them (the editor's pickers and meter). */
  readonly controls: SessionControls;

  // What the session was given, and what it keeps.
  readonly #options: RuntimeOptions;
  /** The given tools and, once they run, the extensions'. */
  readonly #tools: SessionTools;
  readonly #limits: Limits;
  readonly #conversation: Conversation;
  readonly #meter: UsageMeter;
  readonly #session: SessionState;
  readonly #extras: TitleAndNotices;
  /** The resumed session's file (not what was read of it: the messages are kept, the records go). */
  readonly #resumed: { id: string; file: string } | undefined;
  /** Notices for the user, sent at the next turn. */
  readonly #notices: Notice[] = [];
  /** Notes for the model's next user message (a cut answer, an undo, stopped processes). */
  readonly #notes: string[] = [];
  #mode: Mode;
  #closed = false;
  #closeDone: Promise<void> | undefined;
  readonly #closing = new AbortController();

  // The turns: what one turn does (turn.ts), and the running one.
  readonly #turns: Turns;
  #turn: Promise<unknown> | undefined;
  #turnSignal: AbortSignal | undefined;
  /** The running turn's emit, for changes made inside it (the plan). */
  #turnEmit: EventSink | undefined;
  /** The messages the user sends while a turn runs (steer()). */
  readonly #inbox = new TurnInbox();
  /** The rewind points (rewind.ts). */
  readonly #rewinds: SessionRewinds;
  /** A rewind is running: no turn starts. */
  #rewinding = false;

  private constructor(options: RuntimeOptions, root: string, resumed: ResumeSource | undefined) {
    // Not the resumed session's records: a long session is kept once, as its messages.
    const { resume: _read, ...kept } = options;
    this.#options = kept;
    this.root = root;
    this.withheld = options.withheld;
    this.#mode = options.mode;
    this.#tools = new SessionTools(options.tools);
    this.#limits = { ...DEFAULT_LIMITS, ...options.limits };
    const sandbox = options.sandboxAvailability ?? options.executor.sandbox;
    if (!sandbox.available)
      this.#notices.push({
        level: "warning",
        text: `No OS sandbox: ${sandbox.reason} Every command asks before it runs. ${sandbox.fix}`,
      });
    const instructions = readInstructions(root);
    for (const text of instructions.notes) this.#notices.push({ level: "info", text });
    this.#notices.push(...(options.notices ?? []));
    this.systemPrompt = buildSystemPrompt({
      version: VERSION,
      root,
      extraRoots: options.extraRoots ?? [],
      platform: process.platform,
      arch: process.arch,
      sandbox,
      instructions: instructions.files,
    });
    this.#meter = new UsageMeter(() => this.systemPrompt.length + JSON.stringify(this.#tools.registry.specs()).length);
    options.plan?.subscribe((items) =>
      this.#turnEmit?.({ type: "plan", items: items.map((item) => ({ content: item.content, status: item.status })) }),
    );

    let writeFailed = false;
    const onWriteError = (error: Error) => {
      if (writeFailed) return;
      writeFailed = true;
      this.#notices.push({
        level: "warning",
        text: `Writing the session file failed (${error.message}); it may be incomplete.`,
      });
    };
    const store = options.sessionStore && options.sessionStore(onWriteError);
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
    const state =
      resumed && replayResumed(resumed, { meter: this.#meter, controls: this.controls, notices: this.#notices });
    this.#extras = new TitleAndNotices(this.#conversation, state);
    this.#session = openSession(
      store,
      resumed && { file: resumed.file, lock: resumed.lock },
      { root, version: VERSION, model: options.model.info.spec },
      options.sessionId,
    );
    this.#rewinds = SessionRewinds.fromRecords(
      {
        conversation: this.#conversation,
        undo: options.undo,
        approver: options.approver,
        notes: this.#notes,
        signal: this.#closing.signal,
      },
      resumed?.data.records,
    );
    this.#turns = new Turns(
      {
        root,
        options: kept,
        conversation: this.#conversation,
        session: this.#session,
        controls: this.controls,
        meter: this.#meter,
        limits: this.#limits,
        tools: this.#tools,
        // Models subagents ask for (custom agents' `model`), opened once per session.
        childModels: new ChildModels(options.modelFor, (usage, price) => this.#meter.spend(usage, price)),
        extras: this.#extras,
        notices: this.#notices,
        notes: this.#notes,
        request: () => this.#request(),
        stopWriters: () => this.#stopWriters(),
        mode: () => this.#mode,
        inbox: this.#inbox,
        rewinds: this.#rewinds,
      },
      state?.lastMode,
    );
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
    const resumed = claimResume(options.resume);
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
    return allowedModes(this.#options.modeRefusal);
  }

  resolveCommand(text: string): ResolvedCommand {
    return resolveCommand(text, this.#options.commands);
  }

  availableCommands(): CommandInfo[] {
    return this.#options.commands?.list() ?? [];
  }

  /**
   * A warning that arose after the session started (the secret identity walk was cut): shown to
   * the user at the next turn, and said to the model in its next message.
   */
  warn(text: string): void {
    this.#notices.push({ level: "warning", text });
    this.#notes.push(text);
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
  runTurn(
    prompt: string,
    signal: AbortSignal,
    onEvent: EventSink,
    shown?: readonly PromptBlock[],
    images: readonly ImageBlock[] = [],
  ): Promise<StopReason> {
    if (this.#closed) return Promise.reject(new Error("This session is closed."));
    if (this.#turn) return Promise.reject(new Error("A turn is already running in this session."));
    if (this.#rewinding)
      return Promise.reject(new Error("A rewind is running in this session; send the prompt once it is done."));
    // The API refuses an empty text block, and there is nothing to answer: no request at all.
    if (prompt.trim() === "" && images.length === 0) {
      safeEmit(onEvent)({
        type: "notice",
        level: "info",
        text: "The prompt was empty, so nothing was sent to the model.",
      });
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
   * `!cmd`: a shell command the user runs, through the session's bash tool (userCommand.ts): the
   * same permission engine, sandbox and audit as the model's commands, shown with the same events;
   * not part of the conversation. Refused (rejects) while a turn or a rewind runs.
   */
  runUserCommand(command: string, signal: AbortSignal, onEvent: EventSink): Promise<CallOutcome> {
    if (this.#closed) return Promise.reject(new Error("This session is closed."));
    if (this.#turn) return Promise.reject(new Error("A turn is running in this session; run the command after it."));
    if (this.#rewinding) return Promise.reject(new Error("A rewind is running in this session."));
    const both = AbortSignal.any([signal, this.#closing.signal]);
    // Questions raised outside the call (a sandboxed command's network request) end with it.
    this.#turnSignal = both;
    const run = runUserCommand(
      { services: this.#options, registry: this.#tools.registry, root: this.root, mode: this.#mode },
      command,
      both,
      safeEmit(onEvent),
    );
    this.#turn = run;
    const clear = () => {
      this.#turn = undefined;
      this.#turnSignal = undefined;
    };
    run.then(clear, clear);
    return run;
  }

  /**
   * The running turn's signal (else the session's): questions raised outside a tool call, such as
   * a sandboxed command's network request, end with the turn that caused them.
   */
  activeSignal(): AbortSignal {
    return this.#turnSignal ?? this.#closing.signal;
  }

  async #runTurn(
    prompt: string,
    outer: AbortSignal,
    show: EventSink,
    shown: readonly PromptBlock[] | undefined,
    images: readonly ImageBlock[],
  ): Promise<StopReason> {
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
    this.#inbox.open();
    let reason: StopReason | "error" = "error";
    try {
      reason = await this.#turns.run({ prompt, signal, emit, shown, images });
      return reason;
    } finally {
      const notice = notTakenNotice(this.#inbox.close(), reason);
      if (notice) emit({ type: "notice", level: "warning", text: notice });
      this.#turnSignal = undefined;
      this.#turnEmit = undefined;
      await endUndoTurn(this.#options.undo, emit);
      await this.#rewinds.filesSettled("turn");
      this.#extras.endTurn();
    }
  }

  /**
   * A message for the running turn (steering): the model reads it at its next step, after the
   * running tool calls end. `idle` when no turn runs (the front end decides: a prompt of its own,
   * or none); `refused` (why) when it is empty or too large for the model. `shown`: as the user
   * sent it (an editor's blocks), for the session file and a replay.
   */
  steer(text: string, shown?: readonly PromptBlock[]): PutResult {
    if (!this.#inbox.isOpen) return { idle: true };
    const refusal = steeringProblem(text, this.controls.model.info.contextWindow, this.#inbox.waitingChars);
    if (refusal !== undefined) return { refused: refusal };
    return this.#inbox.put(text, shown);
  }

  #request(): Omit<ModelRequest, "messages" | "maxTokens"> {
    const { webSearch, info: first } = this.#options.model;
    return {
      ...this.controls.request(),
      system: this.systemPrompt,
      tools: this.#tools.registry.specs() as ModelRequest["tools"],
      // Web search is the first model's provider's server tool; another provider has none.
      ...(webSearch && this.model.provider === first.provider && { webSearch }),
    };
  }

  /** Records how the last turn ended when the front end ended it (an error, an interrupt). Once per turn. */
  recordStop(reason: string): void {
    this.#turns.end(reason);
  }

  /** Gives each tool call of the last response that has no result a synthetic "Cancelled by the user." result. */
  closeOpenToolCalls(): number {
    return this.#conversation.closeOpenToolCalls();
  }

  /**
   * /compact: both stages now. Undefined when there was nothing to compact. `emit`: told as the
   * compaction begins and ends (compaction.ts), for a front end that shows it as it runs.
   */
  async compact(
    options: { focus?: string; signal?: AbortSignal; emit?: EventSink } = {},
  ): Promise<CompactionResult | undefined> {
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
      {
        force: true,
        signal: AbortSignal.any([options.signal ?? new AbortController().signal, this.#closing.signal]),
        ...(options.focus && { focus: options.focus }),
        ...(options.emit && { emit: safeEmit(options.emit) }),
      },
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

  /**
   * What the last turn changed (the undo store's snapshots: edit tools and sandboxed commands
   * alike). Complete only where commands could write nowhere else: no other project folders (no
   * snapshot holds them) and an OS sandbox (without one, a command the user allowed can write
   * anywhere).
   */
  async turnChanges(): Promise<TurnChanges> {
    const store = this.#options.undo;
    if (!store?.turnChanges) return { available: false, reason: "undo is off in this session" };
    const changes = await store.turnChanges();
    if (!changes.available) return changes;
    const gaps = [...changes.gaps];
    const extra = this.#options.extraRoots ?? [];
    if (extra.length > 0)
      gaps.push(`commands can also write the other project folders (${extra.join(", ")}), which no snapshot holds`);
    if (!(this.#options.sandboxAvailability ?? this.#options.executor.sandbox).available)
      gaps.push("commands run without an OS sandbox, so one you allowed could write outside the project folder");
    return { ...changes, gaps, complete: gaps.length === 0 };
  }

  /** /undo: the injected undo store restores the files of the last turn; the model hears of it next turn. */
  async undo(): Promise<UndoResult> {
    const store = this.#options.undo;
    if (!store) return { restored: [], removed: [], notes: ["Undo is off in this session."] };
    const result = await store.undoLastTurn();
    await this.#rewinds.filesSettled("now");
    const changed = [
      ...result.restored.map((path) => `restored ${path}`),
      ...result.removed.map((path) => `removed ${path}`),
    ];
    if (changed.length > 0) {
      this.#notes.push(
        `The user undid the file changes of the last turn (${changed.join(", ")}). Read those files again before relying on what you saw of them.`,
      );
    }
    return result;
  }

  /** The session's rewind points, oldest first, each with what the turns after it changed. */
  rewindPoints(): Promise<RewindPointView[]> {
    return this.#rewinds.list();
  }

  /** Puts the files and/or the conversation back to just before a prompt (rewind.ts); refused while a turn runs. */
  async rewind(request: RewindRequest): Promise<RewindResult> {
    if (this.#closed) throw new RewindError("This session is closed.");
    if (this.#turn) throw new RewindError("A turn is running; rewind after it ends (or stop it first).");
    if (this.#rewinding) throw new RewindError("Another rewind is running in this session.");
    // No turn starts while the files and the conversation go back (runTurn refuses).
    this.#rewinding = true;
    try {
      return await this.#rewinds.rewind(request);
    } finally {
      this.#rewinding = false;
    }
  }

  /** /undo N: the files back to how they were before the N-th last prompt (N turns back). */
  async undoTurns(n: number): Promise<UndoResult> {
    if (this.#turn) return { restored: [], removed: [], notes: ["A turn is running; undo after it ends."] };
    const point = this.#rewinds.pointBack(n);
    if (!point)
      return { restored: [], removed: [], notes: [`This session has fewer than ${n} prompts to go back over.`] };
    const { files } = await this.#rewinds.rewind({ messageId: point.messageId, mode: "files", dryRun: false });
    return { restored: files?.restored ?? [], removed: files?.removed ?? [], notes: files?.notes ?? [] };
  }

  /**
   * Ends the session: stops a running turn, kills every process the executor started, closes the
   * session file. A second call gets the same promise, so every caller waits for the whole close.
   */
  close(): Promise<void> {
    this.#closeDone ??= this.#close();
    return this.#closeDone;
  }

  async #close(): Promise<void> {
    this.#closed = true;
    this.#closing.abort();
    await this.#turn?.catch(() => {});
    await this.#options.undo?.close?.();
    await this.#options.executor.shutdown();
    this.#session.close(this.#conversation);
    await this.#options.onClose?.();
  }
}
