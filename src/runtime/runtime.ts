// The Runtime: everything one session needs, given to it (Runtime.create) rather than found.
// A front end hands it prompts (runTurn) and gets AgentEvents back; the Runtime keeps the
// conversation, the session file, the mode, the limits and the notices, and hands each prompt
// to a turn (turn.ts). A resumed session is claimed and replayed by resume.ts. What runs now is
// activeTurn.ts; what it starts from, sessionStart.ts; its file changes and undo, fileChanges.ts.
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
import { type CompactionResult, type CompactNowOptions, compactNow } from "./compaction.ts";
import { Conversation } from "./conversation.ts";
import { DEFAULT_LIMITS, type Limits } from "./loop.ts";
import { UsageMeter } from "./meter.ts";
import { type ModeSwitch, stopWriters, switchMode } from "./modeSwitch.ts";
import { claimResume, replayResumed, type ResumeSource } from "./resume.ts";
import type { RuntimeOptions } from "./runtimeOptions.ts";
import type { CommandInfo, Notice, UndoResult } from "./services.ts";
import { openSession, type SessionState, warnOnce } from "./sessionRecording.ts";
import { SessionControls } from "./sessionControls.ts";
import { SessionTools } from "./sessionTools.ts";
import { runtimeRoot, sessionStart } from "./sessionStart.ts";
import { TitleAndNotices } from "./titleAndNotices.ts";
import { Turns } from "./turn.ts";
import type { PutResult } from "./turnInbox.ts";
import { ActiveTurn } from "./activeTurn.ts";
import { type FileChangesContext, lastTurnChanges, sessionDiff, undoLastTurn, undoTurnsBack } from "./fileChanges.ts";
import type { CallOutcome } from "../tools/registry.ts";
import type { TurnChanges } from "../core-types/turnChanges.ts";
import { type RewindPointView, type RewindRequest, type RewindResult, SessionRewinds } from "./rewind.ts";

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

  // The turns: what one turn does (turn.ts), and what runs now (activeTurn.ts).
  readonly #turns: Turns;
  readonly #active: ActiveTurn;
  /** The rewind points (rewind.ts). */
  readonly #rewinds: SessionRewinds;

  private constructor(options: RuntimeOptions, root: string, resumed: ResumeSource | undefined) {
    // Not the resumed session's records: a long session is kept once, as its messages.
    const { resume: _read, ...kept } = options;
    this.#options = kept;
    this.root = root;
    this.withheld = options.withheld;
    this.#mode = options.mode;
    this.#tools = new SessionTools(options.tools);
    this.#limits = { ...DEFAULT_LIMITS, ...options.limits };
    const start = sessionStart(options, root);
    this.#notices.push(...start.notices);
    this.systemPrompt = start.systemPrompt;
    this.#meter = new UsageMeter(() => this.systemPrompt.length + JSON.stringify(this.#tools.registry.specs()).length);

    const store = options.sessionStore && options.sessionStore(warnOnce(this.#notices));
    this.#resumed = resumed && { id: resumed.id, file: resumed.file };
    this.#conversation = new Conversation(resumed?.data.messages ?? []);
    this.controls = new SessionControls(
      { client: options.model.client, info: options.model.info },
      {
        meter: this.#meter,
        conversation: this.#conversation,
        ...(options.modelChoices && { modelChoices: options.modelChoices }),
        ...(options.modelFor && { modelFor: options.modelFor }),
        turnRunning: () => this.#active.running,
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
    this.#active = new ActiveTurn({
      closing: this.#closing.signal,
      closed: () => this.#closed,
      extras: this.#extras,
      rewinds: this.#rewinds,
      undo: options.undo,
      runTurn: (input) => this.#turns.run(input),
      contextWindow: () => this.controls.model.info.contextWindow,
      userCommand: () => ({ services: this.#options, registry: this.#tools.registry, root, mode: this.#mode }),
    });
    // The plan's changes go to the running turn's front end (none between turns).
    options.plan?.subscribe((items) =>
      this.#active.emit({ type: "plan", items: items.map((item) => ({ content: item.content, status: item.status })) }),
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
        stopWriters: () => stopWriters({ options: kept, notes: this.#notes }),
        mode: () => this.#mode,
        inbox: this.#active.inbox,
        rewinds: this.#rewinds,
      },
      state?.lastMode,
    );
  }

  /** Builds a Runtime from its services. Reads the project's instruction files once. */
  static create(options: RuntimeOptions): Runtime {
    const root = runtimeRoot(options.root);
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
  setMode(mode: Mode): Promise<ModeSwitch> {
    return switchMode({ options: this.#options, notes: this.#notes }, mode, (next) => {
      const changed = next !== this.#mode;
      this.#mode = next;
      if (changed) this.controls.emit({ type: "mode", mode: next });
    });
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
    return this.#active.runTurn(prompt, signal, onEvent, shown, images);
  }

  /**
   * `!cmd`: a shell command the user runs, through the session's bash tool (userCommand.ts): the
   * same permission engine, sandbox and audit as the model's commands, shown with the same events;
   * not part of the conversation. Refused (rejects) while a turn or a rewind runs.
   */
  runUserCommand(command: string, signal: AbortSignal, onEvent: EventSink): Promise<CallOutcome> {
    return this.#active.runUserCommand(command, signal, onEvent);
  }

  /**
   * The running turn's signal (else the session's): questions raised outside a tool call, such as
   * a sandboxed command's network request, end with the turn that caused them.
   */
  activeSignal(): AbortSignal {
    return this.#active.activeSignal();
  }

  /**
   * A message for the running turn (steering): the model reads it at its next step, after the
   * running tool calls end. `idle` when no turn runs (the front end decides: a prompt of its own,
   * or none); `refused` (why) when it is empty or too large for the model. `shown`: as the user
   * sent it (an editor's blocks), for the session file and a replay.
   */
  steer(text: string, shown?: readonly PromptBlock[]): PutResult {
    return this.#active.steer(text, shown);
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
  async compact(options: CompactNowOptions = {}): Promise<CompactionResult | undefined> {
    if (this.#active.running) throw new Error("A turn is running; compact after it ends.");
    this.#conversation.closeOpenToolCalls();
    const { client, info } = this.controls.model;
    const request = { ...this.#request(), maxTokens: Math.min(this.#limits.maxOutputTokens, info.maxTokens) };
    const { contextWindow } = info;
    const context = { client, request, contextWindow, conversation: this.#conversation, meter: this.#meter };
    const result = await compactNow(context, options, this.#closing.signal);
    if (result) this.controls.emit({ type: "usage", ...this.controls.usage });
    return result;
  }

  /** /diff: what this session changed in the project (fileChanges.ts). */
  diff(): Promise<string> {
    return sessionDiff(this.#fileChanges());
  }

  /** What the last turn changed, and what that cannot show (fileChanges.ts). */
  turnChanges(): Promise<TurnChanges> {
    return lastTurnChanges(this.#fileChanges());
  }

  /** /undo: the undo store restores the files of the last turn; the model hears of it next turn. */
  undo(): Promise<UndoResult> {
    return undoLastTurn(this.#fileChanges());
  }

  #fileChanges(): FileChangesContext {
    return { options: this.#options, rewinds: this.#rewinds, notes: this.#notes };
  }

  /** The session's rewind points, oldest first, each with what the turns after it changed. */
  rewindPoints(): Promise<RewindPointView[]> {
    return this.#rewinds.list();
  }

  /** Puts the files and/or the conversation back to just before a prompt (rewind.ts); refused while a turn runs. */
  async rewind(request: RewindRequest): Promise<RewindResult> {
    return this.#active.rewind(() => this.#rewinds.rewind(request));
  }

  /** /undo N: the files back to how they were before the N-th last prompt (N turns back). */
  async undoTurns(n: number): Promise<UndoResult> {
    if (this.#active.running) return { restored: [], removed: [], notes: ["A turn is running; undo after it ends."] };
    return undoTurnsBack(this.#fileChanges(), n);
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
    await this.#active.ended();
    await this.#options.undo?.close?.();
    await this.#options.executor.shutdown();
    this.#session.close(this.#conversation);
    await this.#options.onClose?.();
  }
}
