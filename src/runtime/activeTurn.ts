// What runs in a session now: one turn or one user command (`!cmd`) at a time, and neither while
// the session closes or a rewind runs; the running one's signal (a question raised outside a tool
// call, such as a sandboxed command's network request, ends with it), its emit (changes made
// inside it: the plan), and the inbox of the messages the user sends while it runs (steering).
// Apart from runtime.ts, which owns the session and its parts; what one turn does is turn.ts.
import type { EventSink, StopReason } from "../core-types/events.ts";
import type { ImageBlock } from "../model/types.ts";
import type { PromptBlock } from "../store/sessionRecords.ts";
import type { CallOutcome } from "../tools/registry.ts";
import { RewindError, type SessionRewinds } from "./rewind.ts";
import type { RuntimeOptions } from "./runtimeOptions.ts";
import { safeEmit } from "./safeEmit.ts";
import { notTakenNotice, steeringProblem } from "./steering.ts";
import type { TitleAndNotices } from "./titleAndNotices.ts";
import type { TurnInput } from "./turn.ts";
import { type PutResult, TurnInbox } from "./turnInbox.ts";
import { endUndoTurn } from "./undoTurn.ts";
import { type UserCommandContext, runUserCommand } from "./userCommand.ts";

export interface ActiveTurnDeps {
  /** Aborted when the session closes: whatever runs ends with it. */
  closing: AbortSignal;
  closed: () => boolean;
  extras: TitleAndNotices;
  rewinds: SessionRewinds;
  undo: RuntimeOptions["undo"];
  /** What one turn does (Turns.run). */
  runTurn: (input: TurnInput) => Promise<StopReason>;
  /** The context window of the model in use: a steering message must fit in it. */
  contextWindow: () => number;
  /** What a user command runs with, as the session is now. */
  userCommand: () => UserCommandContext;
}

export class ActiveTurn {
  /** The messages the user sends while a turn runs (steer()). */
  readonly inbox = new TurnInbox();
  #turn: Promise<unknown> | undefined;
  #signal: AbortSignal | undefined;
  /** The running turn's emit, for changes made inside it (the plan). */
  #emit: EventSink | undefined;
  /** A rewind is running: no turn starts. */
  #rewinding = false;

  constructor(private readonly deps: ActiveTurnDeps) {}

  /** A turn or a user command runs. */
  get running(): boolean {
    return this.#turn !== undefined;
  }

  get rewinding(): boolean {
    return this.#rewinding;
  }

  /** Settles once what runs has ended (at once when nothing does). */
  async ended(): Promise<void> {
    await this.#turn?.catch(() => {});
  }

  /** Tells the running turn's front end `event`; nothing when no turn runs. */
  emit: EventSink = (event) => this.#emit?.(event);

  /** Runtime.runTurn: refused (rejects) while the session is closed or another turn or a rewind runs. */
  runTurn(
    prompt: string,
    signal: AbortSignal,
    onEvent: EventSink,
    shown: readonly PromptBlock[] | undefined,
    images: readonly ImageBlock[],
  ): Promise<StopReason> {
    if (this.deps.closed()) return Promise.reject(new Error("This session is closed."));
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

  /** Runtime.runUserCommand: refused (rejects) while a turn or a rewind runs. */
  runUserCommand(command: string, signal: AbortSignal, onEvent: EventSink): Promise<CallOutcome> {
    if (this.deps.closed()) return Promise.reject(new Error("This session is closed."));
    if (this.#turn) return Promise.reject(new Error("A turn is running in this session; run the command after it."));
    if (this.#rewinding) return Promise.reject(new Error("A rewind is running in this session."));
    const both = AbortSignal.any([signal, this.deps.closing]);
    // Questions raised outside the call (a sandboxed command's network request) end with it.
    this.#signal = both;
    const run = runUserCommand(this.deps.userCommand(), command, both, safeEmit(onEvent));
    this.#turn = run;
    const clear = () => {
      this.#turn = undefined;
      this.#signal = undefined;
    };
    run.then(clear, clear);
    return run;
  }

  /** The running turn's signal, else the session's. */
  activeSignal(): AbortSignal {
    return this.#signal ?? this.deps.closing;
  }

  /** Runtime.steer: `idle` when no turn runs; `refused` (why) when empty or too large for the model. */
  steer(text: string, shown?: readonly PromptBlock[]): PutResult {
    if (!this.inbox.isOpen) return { idle: true };
    const refusal = steeringProblem(text, this.deps.contextWindow(), this.inbox.waitingChars);
    if (refusal !== undefined) return { refused: refusal };
    return this.inbox.put(text, shown);
  }

  /** Runtime.rewind: `rewind` runs with no turn starting meanwhile; refused while one runs or the session is closed. */
  async rewind<T>(rewind: () => Promise<T>): Promise<T> {
    if (this.deps.closed()) throw new RewindError("This session is closed.");
    if (this.#turn) throw new RewindError("A turn is running; rewind after it ends (or stop it first).");
    if (this.#rewinding) throw new RewindError("Another rewind is running in this session.");
    // No turn starts while the files and the conversation go back (runTurn refuses).
    this.#rewinding = true;
    try {
      return await rewind();
    } finally {
      this.#rewinding = false;
    }
  }

  async #runTurn(
    prompt: string,
    outer: AbortSignal,
    show: EventSink,
    shown: readonly PromptBlock[] | undefined,
    images: readonly ImageBlock[],
  ): Promise<StopReason> {
    const { extras } = this.deps;
    const signal = AbortSignal.any([outer, this.deps.closing]);
    this.#signal = signal;
    // The turn's notices go into the session file too (a replay shows them). What the front end
    // returns is handed back (a command's output waits on a slow editor).
    extras.beginTurn();
    const emit: EventSink = (event) => {
      const answer = show(event);
      extras.event(event);
      return answer;
    };
    this.#emit = emit;
    this.inbox.open();
    let reason: StopReason | "error" = "error";
    try {
      reason = await this.deps.runTurn({ prompt, signal, emit, shown, images });
      return reason;
    } finally {
      const notice = notTakenNotice(this.inbox.close(), reason);
      if (notice) emit({ type: "notice", level: "warning", text: notice });
      this.#signal = undefined;
      this.#emit = undefined;
      await endUndoTurn(this.deps.undo, emit);
      await this.deps.rewinds.filesSettled("turn");
      extras.endTurn();
    }
  }
}
