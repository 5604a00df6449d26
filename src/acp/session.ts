// One ACP session: its runtime, its updates, its questions, and the turn that runs. It is built
// with a runtime already prepared (sessions.ts prepares it with this session's SessionLink); after
// a yes to the project's settings at the first prompt it swaps in a runtime prepared again.
// How a stop ends a turn in the editor is turnStop.ts; what the turn changed, turnChanges.ts.
import * as acp from "@agentclientprotocol/sdk";
import type { StopReason } from "../core-types/events.ts";
import type { Mode } from "../core-types/mode.ts";
import { stackOf } from "../errors/caught.ts";
import { PromptQueue } from "../runtime/promptQueue.ts";
import type { Runtime } from "../runtime/runtime.ts";
import { oneLine, visible } from "../text/visible.ts";
import { commandList, runCommand, unknownCommandLine } from "./commands.ts";
import { configOptions, modeOf, sessionModes, setConfigOption } from "./configOptions.ts";
import { ControlUpdates } from "./controlUpdates.ts";
import { shownError } from "./errors.ts";
import { promptImages, promptText } from "./prompt.ts";
import { promptBlocks } from "./promptBlocks.ts";
import { droppedLine, enterQueue } from "./turnInput.ts";
import type { SessionLink } from "./sessionLink.ts";
import { type ClientFeatures, SessionMapper } from "./sessionMapper.ts";
import { editorStopNote } from "./stopNotes.ts";
import { STOP_REASONS, settleAfterStop } from "./turnStop.ts";
import { replyMessage } from "./eventMapper.ts";
import { usageUpdate } from "./usage.ts";
import { fileChangeRequestId } from "./airMeta.ts";
import { fileChangeReport, reportChanges } from "./turnChanges.ts";

export interface SessionParts {
  link: SessionLink;
  /** Prepared with `link`'s approver and project-trust answers. */
  runtime: Runtime;
  /**
   * Prepares this session's runtime again in `mode`, once the old one has closed (after a yes to the project's
   * settings).
   */
  prepareAgain: (mode: Mode) => Promise<Runtime>;
  /** After a stop, how long running calls may take to report. */
  settleMs: number;
  /** The editor's log (stderr). */
  log: (text: string) => void;
  /** What the editor's initialize said it takes. */
  features: ClientFeatures;
  /** Told when a turn begins and ends (the memory trim waits for a quiet agent). */
  turns?: { turnStarted(): void; turnEnded(): void };
}

/** What is made anew with each runtime the session has. */
interface RuntimeBound {
  runtime: Runtime;
  mapper: SessionMapper;
  controls: ControlUpdates;
}

export class Session {
  readonly id: string;
  /** Lines (the answers to the project-trust questions) that wait for the turn's start. */
  readonly #notices: string[] = [];
  /** session/close or shutdown came: a runtime prepared again late is closed, not attached. */
  #ended = false;
  #turn: AbortController | undefined;
  /** The prompt request that runs, so close() can wait for its answer. */
  #running: Promise<unknown> | undefined;
  /** The / menu the editor was last sent (JSON), so a turn that changes it (MCP prompts) re-sends it. */
  #advertised: string | undefined;
  readonly #link: SessionLink;
  readonly #parts: SessionParts;
  #bound: RuntimeBound;
  /** Log lines already written for this session. */
  readonly #logged = new Set<string>();
  /** The prompts sent while a turn runs, each waiting for the turns before it. */
  readonly queue = new PromptQueue();

  constructor(parts: SessionParts) {
    this.id = parts.link.id;
    this.#link = parts.link;
    this.#parts = parts;
    this.#bound = this.#bind(parts.runtime);
  }

  /** The runtime now (another after a yes to the project's settings). */
  get runtime(): Runtime {
    return this.#bound.runtime;
  }

  /** A prompt runs. */
  get busy(): boolean {
    return this.#turn !== undefined;
  }

  get #controls(): ControlUpdates {
    return this.#bound.controls;
  }

  get #mapper(): SessionMapper {
    return this.#bound.mapper;
  }

  get #calls() {
    return this.#link.calls;
  }

  get #channel() {
    return this.#link.channel;
  }

  #bind(runtime: Runtime): RuntimeBound {
    return {
      runtime,
      mapper: new SessionMapper(this.#calls, runtime.root, this.#parts.features, {
        send: (update) => this.#channel.send(update),
        written: () => this.#channel.flush(),
      }),
      controls: new ControlUpdates(
        runtime,
        (update) => this.#announceUpdate(update),
        (text) => this.#logOnce(text),
      ),
    };
  }

  /**
   * A line for the editor's log, once per session: some editors show every stderr line to the
   * user as an error (acp.el), and a failure that repeats at every turn says nothing new.
   */
  #logOnce(text: string): void {
    if (this.#logged.has(text)) return;
    this.#logged.add(text);
    this.#parts.log(text);
  }

  /** An update about the session, not a turn: sent whether a prompt runs or not. */
  #announceUpdate(update: acp.SessionUpdate): void {
    this.#link.notify(update).catch(() => {});
  }

  /** What session/new, load and resume answer: the modes the team policy allows (the config options say them again). */
  answer(): acp.LoadSessionResponse {
    return {
      modes: sessionModes(this.runtime),
      configOptions: configOptions(this.runtime, (text) => this.#logOnce(text)),
    };
  }

  /** After the answer to session/new, load or resume: the / menu (when listing it worked) and the usage so far. */
  announceStart(): void {
    const availableCommands = commandList(this.runtime, (text) => this.#logOnce(text));
    if (availableCommands) {
      this.#advertised = JSON.stringify(availableCommands);
      this.#announceUpdate({ sessionUpdate: "available_commands_update", availableCommands });
    }
    this.#announceUpdate(usageUpdate(this.runtime.controls.usage));
  }

  #send(updates: acp.SessionUpdate[]): void {
    for (const update of updates) this.#channel.send(update);
  }

  /** Sends a replay now (no prompt runs), all of it written before this resolves. */
  async replay(updates: acp.SessionUpdate[]): Promise<void> {
    this.#channel.open();
    try {
      this.#send(updates);
      await this.#channel.flush();
    } finally {
      if (!this.#turn) this.#channel.close();
    }
  }

  /**
   * Work outside a prompt that may ask the user (a rewind over a file changed outside Garuda):
   * the channel is open while it runs, so the question reaches the editor.
   */
  async answering<T>(work: () => Promise<T>): Promise<T> {
    this.#channel.open();
    try {
      return await work();
    } finally {
      await this.#channel.flush();
      if (!this.#turn) this.#channel.close();
    }
  }

  /**
   * session/cancel, and the first step of close and shutdown: the turn stops, and the prompts queued behind it are
   * dropped (said in the turn).
   */
  cancel(): void {
    const dropped = this.queue.drop();
    if (dropped > 0 && this.#channel.isOpen) this.#say(droppedLine(dropped));
    this.#turn?.abort();
  }

  /** Shutdown: the turn stops and a runtime prepared again late is not attached. */
  end(): void {
    this.#ended = true;
    this.cancel();
  }

  /** session/close: the turn stops as on session/cancel, the runtime closes (its executor kills what runs). */
  async close(): Promise<void> {
    this.end();
    await this.runtime.close();
    await this.#running?.catch(() => {});
  }

  /** session/set_mode: the runtime's refusal (a team policy) is the editor's error. */
  async setMode(modeId: string): Promise<void> {
    const mode = modeOf(modeId);
    const { refusal, notices } = await this.#controls.quietly("mode", () => this.runtime.setMode(mode));
    if (refusal !== undefined) throw acp.RequestError.invalidParams({ modeId: oneLine(modeId, 100) }, visible(refusal));
    for (const text of notices) this.#announce(text);
  }

  /** session/set_config_option: the mode option and the session modes are one setting, so the older API hears of it. */
  async setConfigOption(params: acp.SetSessionConfigOptionRequest): Promise<acp.SetSessionConfigOptionResponse> {
    const notices = await this.#controls.quietly("config", () => setConfigOption(this.runtime, params));
    for (const text of notices) this.#announce(text);
    return { configOptions: configOptions(this.runtime, (text) => this.#logOnce(text)) };
  }

  #say(text: string): void {
    this.#send(this.#mapper.notice(text));
  }

  /**
   * A line the user must see now, in a prompt or between prompts (a mode switch stopped a
   * process): between prompts it goes straight to the editor as a message of its own.
   */
  #announce(text: string): void {
    if (this.#channel.isOpen) {
      this.#say(text);
      return;
    }
    this.#mapper.beginTurn();
    for (const update of this.#mapper.notice(text)) this.#link.notify(update).catch(() => {});
  }

  /**
   * session/prompt: one turn at a time; one sent while a turn runs waits for it (promptQueue.ts),
   * in order. A stop (session/cancel, or the request cancelled) ends it as "cancelled".
   */
  async prompt(blocks: acp.ContentBlock[], requestSignal: AbortSignal, meta?: unknown): Promise<acp.PromptResponse> {
    if (!(await enterQueue(this.queue, requestSignal))) return { stopReason: "cancelled" };
    try {
      return await this.#prompt(blocks, requestSignal, fileChangeRequestId(meta));
    } finally {
      this.queue.leave();
    }
  }

  /** `reportId`: the prompt asked for AIR's file-change report (acp/turnChanges.ts). */
  async #prompt(
    blocks: acp.ContentBlock[],
    requestSignal: AbortSignal,
    reportId: string | undefined,
  ): Promise<acp.PromptResponse> {
    const controller = new AbortController();
    this.#turn = controller;
    this.#parts.turns?.turnStarted();
    const abort = () => controller.abort();
    requestSignal.addEventListener("abort", abort, { once: true });
    controller.signal.addEventListener(
      "abort",
      () => {
        this.#calls.stop();
        // A command held for a slow editor must not keep the stop waiting.
        this.#send(this.#mapper.endTerminals());
      },
      { once: true },
    );
    this.#calls.beginTurn();
    this.#mapper.beginTurn();
    this.#channel.open();
    const report = { id: reportId, turnRan: false };
    const running = this.#run(blocks, controller.signal, report);
    this.#running = running;
    try {
      return await running;
    } finally {
      requestSignal.removeEventListener("abort", abort);
      // What the turn changed, before the prompt's answer (the files of a turn that failed too).
      if (report.turnRan)
        await reportChanges(this.runtime, report.id, {
          send: (update) => this.#channel.send(update),
          log: (text) => this.#logOnce(text),
        });
      else if (report.id !== undefined)
        this.#channel.send(fileChangeReport({ available: false, reason: "no turn ran" }, report.id));
      // The history's time of the session: after every turn that wrote to its file.
      if (this.runtime.session)
        this.#channel.send({ sessionUpdate: "session_info_update", updatedAt: new Date().toISOString() });
      await this.#channel.flush();
      this.#channel.close();
      this.#turn = undefined;
      this.#running = undefined;
      this.#parts.turns?.turnEnded();
    }
  }

  /**
   * The project's settings (or hooks) asked about, once, at the first prompt; after a yes the
   * runtime is prepared again with them (nothing has run in it yet). False: the session ended.
   */
  async #askProjectTrust(signal: AbortSignal): Promise<boolean> {
    if (!this.#link.trust.waiting) return true;
    const { yes, lines } = await this.#link.trust.ask(this.#link.approver, signal);
    for (const text of lines) this.#notices.push(text);
    if (!yes || signal.aborted) return !this.#ended;
    // The old runtime lets go of the session file first (one writer per file).
    const mode = this.runtime.mode;
    await this.runtime.close();
    const fresh = await this.#parts.prepareAgain(mode);
    if (this.#ended) {
      await fresh.close();
      return false;
    }
    this.#bound = this.#bind(fresh);
    this.#mapper.beginTurn();
    return true;
  }

  async #run(
    blocks: acp.ContentBlock[],
    signal: AbortSignal,
    report: { turnRan: boolean },
  ): Promise<acp.PromptResponse> {
    if (!(await this.#askProjectTrust(signal))) return { stopReason: "cancelled" };
    if (signal.aborted) return { stopReason: "cancelled" };
    const runtime = this.runtime;
    // Calls a stop left open are closed first, in the editor and in the conversation.
    this.#send(this.#calls.closeAll().flatMap((call) => this.#mapper.cancelled(call)));
    runtime.closeOpenToolCalls();
    for (const text of this.#notices.splice(0)) this.#say(text);

    const text = promptText(blocks, runtime.root);
    const command = text.trimStart().startsWith("/")
      ? runtime.resolveCommand(text)
      : ({ kind: "prompt", text } as const);
    if (command.kind === "builtin") {
      const reply = await runCommand(runtime, command.name, command.args, signal, this.#mapper.compactionSink());
      for (const text of reply.notices) this.#say(text);
      if (reply.text !== "") this.#send([replyMessage(reply.text)]);
      return { stopReason: signal.aborted ? "cancelled" : "end_turn" };
    }
    if (command.kind === "unknown") {
      this.#say(unknownCommandLine(runtime, command.name));
      return { stopReason: "end_turn" };
    }

    let reason: StopReason;
    report.turnRan = true;
    try {
      const { images, refused } = promptImages(blocks);
      for (const line of refused) this.#say(line);
      reason = await runtime.runTurn(
        command.text,
        signal,
        (event) => {
          this.#link.subagents?.map(event);
          this.#send(this.#mapper.map(event));
          return this.#mapper.hold(event);
        },
        promptBlocks(blocks),
        images,
      );
    } catch (error) {
      if (!signal.aborted) {
        runtime.recordStop("error");
        this.#send(this.#calls.closeAll().flatMap((call) => this.#mapper.cancelled(call)));
        const { ModelError } = await import("../model/types.ts");
        if (!(error instanceof ModelError)) this.#parts.log(`garuda acp: the turn failed: ${stackOf(error)}`);
        throw new acp.RequestError(-32603, shownError(error));
      }
      reason = "cancelled";
    }
    this.#refreshCommands();
    if (reason === "cancelled" || signal.aborted) {
      await settleAfterStop({
        calls: this.#calls,
        mapper: this.#mapper,
        send: (updates) => this.#send(updates),
        say: (text) => this.#say(text),
        settleMs: this.#parts.settleMs,
      });
      return { stopReason: "cancelled" };
    }
    const note = editorStopNote(reason);
    if (note) this.#say(note);
    return { stopReason: STOP_REASONS[reason] };
  }

  /** MCP servers start at the first turn; their prompts join the / menu then. */
  #refreshCommands(): void {
    const availableCommands = commandList(this.runtime, (text) => this.#logOnce(text));
    if (!availableCommands || JSON.stringify(availableCommands) === this.#advertised) return;
    this.#advertised = JSON.stringify(availableCommands);
    this.#send([{ sessionUpdate: "available_commands_update", availableCommands }]);
  }
}
