// One turn, step by step: the waiting notices go out, the extensions start, a deferred /command
// expands, the mode and the undo point are set, the prompt is built (notes, @-mentions, images)
// and recorded, and the loop runs the model and the tools until the turn ends. The Runtime owns
// the session and hands a turn what it needs (TurnSession); what only turns use lives here: the
// mode of the last turn (for the mode notes) and whether the running turn's end is recorded yet.
import type { EventSink, StopReason } from "../core-types/events.ts";
import type { ImageBlock, ModelRequest } from "../model/types.ts";
import type { Mode } from "../core-types/mode.ts";
import type { PromptBlock } from "../store/sessionRecords.ts";
import type { CallContext } from "../tools/registry.ts";
import { turnCallContext } from "./callContext.ts";
import type { ChildModels } from "./childModels.ts";
import { deferredCommand } from "./commands.ts";
import type { Conversation } from "./conversation.ts";
import { type Limits, runLoop } from "./loop.ts";
import { attachMentions } from "./mentions.ts";
import type { UsageMeter } from "./meter.ts";
import { CUT_NOTE, modeNotes } from "./notes.ts";
import type { RuntimeOptions } from "./runtimeOptions.ts";
import type { Notice } from "./services.ts";
import type { SessionState } from "./sessionRecording.ts";
import type { SessionControls } from "./sessionControls.ts";
import type { SessionTools } from "./sessionTools.ts";
import { withSubagents } from "./subagentHost.ts";
import type { TitleAndNotices } from "./titleAndNotices.ts";
import { expandDeferred, promptContent, takesImages } from "./turnPrompt.ts";
import type { TurnInbox } from "./turnInbox.ts";
import { beginUndoTurn } from "./undoTurn.ts";
import { newMessageId } from "../store/messageIds.ts";
import type { SessionRewinds } from "./rewind.ts";
import { pointText } from "../store/rewindRecords.ts";

/** What a turn is given by its Runtime: the session's parts, shared with it. */
export interface TurnSession {
  root: string;
  options: Omit<RuntimeOptions, "resume">;
  conversation: Conversation;
  session: SessionState;
  controls: SessionControls;
  meter: UsageMeter;
  limits: Limits;
  tools: SessionTools;
  childModels: ChildModels;
  extras: TitleAndNotices;
  /** Notices waiting for the next turn (the Runtime adds to them between turns). */
  notices: Notice[];
  /** Notes for the model's next user message (a cut answer, an undo, stopped processes). */
  notes: string[];
  /** The request of the model in use now, without messages (read at every request). */
  request(): Omit<ModelRequest, "messages" | "maxTokens">;
  /** Stops the background processes that can write the project (plan mode); the notices. */
  stopWriters(): Promise<string[]>;
  /** The session's mode now: a turn reads it once its prompt is expanded (a switch while extensions start applies). */
  mode(): Mode;
  /** What the user sends while the turn runs; the loop takes it between steps. */
  inbox: TurnInbox;
  /** The session's rewind points: each prompt gets one (rewind.ts). */
  rewinds: SessionRewinds;
}

/** One prompt's turn: how it is asked for. `shown`: the prompt as the user sent it (an editor's blocks). */
export interface TurnInput {
  prompt: string;
  signal: AbortSignal;
  emit: EventSink;
  shown: readonly PromptBlock[] | undefined;
  images: readonly ImageBlock[];
}

export class Turns {
  readonly #s: TurnSession;
  /** The mode of the last turn that sent a prompt: plan mode's notes, and build mode's once after it. */
  #lastMode: Mode | undefined;
  /** A prompt was recorded and its end is not yet. */
  #open = false;
  #lastSteps = 0;

  constructor(session: TurnSession, lastMode: Mode | undefined) {
    this.#s = session;
    this.#lastMode = lastMode;
  }

  async run(input: TurnInput): Promise<StopReason> {
    const { conversation, options, session } = this.#s;
    const { emit, signal } = input;
    const announce = (notice: Notice) => {
      emit({ type: "notice", level: notice.level, text: notice.text });
      options.audit?.record({ type: "notice", text: notice.text });
    };
    for (const notice of this.#s.notices.splice(0)) announce(notice);
    if (signal.aborted) return "cancelled";
    if (options.extensions) {
      await this.#s.tools.join(options.extensions, signal, announce);
      if (signal.aborted) return "cancelled";
    }
    let prompt = input.prompt;
    const deferred = deferredCommand(prompt, options.commands);
    if (deferred) {
      const expanded = await expandDeferred(deferred, { signal, emit, audit: options.audit });
      if ("stop" in expanded) return expanded.stop;
      prompt = expanded.prompt;
    }
    const mode = this.#s.mode();
    const warn = (text: string) => emit({ type: "notice", level: "warning", text });
    // A build-mode turn still running at the switch may have started more.
    if (mode === "plan") for (const text of await this.#s.stopWriters()) warn(text);
    session.ensure(conversation, mode, warn);
    if (session.recordedMode !== mode) {
      conversation.record({ type: "mode", mode });
      session.recordedMode = mode;
    }
    this.#s.controls.sync();
    conversation.closeOpenToolCalls();
    if (options.undo) beginUndoTurn(options.undo, signal, warn);
    const previousMode = this.#lastMode;
    const pending = this.#s.notes.splice(0);
    this.#lastMode = mode;
    const attached = await attachMentions(prompt, {
      root: this.#s.root,
      home: options.home,
      engine: options.engine,
      mode,
      signal,
      ...(options.approver && { approver: options.approver }),
      ...(options.buffers && { buffers: options.buffers }),
      images: takesImages(options.model.info),
      model: options.model.info.spec,
    });
    for (const text of attached.notices) warn(text);
    if (signal.aborted) return "cancelled";
    const made = promptContent(prompt, {
      notes: [...modeNotes(mode, previousMode), ...pending],
      attached,
      images: input.images,
      model: options.model.info,
      emit,
      conversation: conversation.messages,
    });
    if ("unsent" in made) {
      // The conversation stays as it was, and the notes wait for the next prompt; a refusal is
      // kept in the session file (a notice record, which sends nothing to the model).
      this.#s.notes.unshift(...pending);
      if (made.unsent === "too_large") {
        this.#lastMode = previousMode;
        conversation.record({ type: "notice", level: "warning", text: made.refusal });
      }
      return "done";
    }
    // The prompt as the user sent it, when the model gets another text (a /command expanded).
    const typed = input.prompt;
    const shown = input.shown
      ? [...input.shown]
      : prompt !== typed
        ? [{ type: "text" as const, text: typed }]
        : undefined;
    const messageId = newMessageId();
    conversation.record({ type: "user", prompt, content: made.content, ...(shown && { shown }), messageId });
    this.#s.rewinds.pointTaken(messageId, pointText(prompt, shown), warn);
    this.#s.extras.promptRecorded(shown ?? typed, emit);
    return await this.#runModel(mode, signal, emit);
  }

  /**
   * Records how the last turn ended, once per turn: by the loop, or by the front end that ended it (an error, an
   * interrupt).
   */
  end(reason: string): void {
    if (!this.#open) return;
    this.#open = false;
    this.#s.conversation.record({ type: "end", stopReason: reason, steps: this.#lastSteps });
    this.#s.options.audit?.record({ type: "stop", reason });
  }

  /** The recorded prompt's turn: the model and the tools until it ends; the end is recorded either way. */
  async #runModel(mode: Mode, signal: AbortSignal, emit: EventSink): Promise<StopReason> {
    this.#open = true;
    const stats = { steps: 0 };
    const { controls, request } = this.#s;
    try {
      // Read at every request: a model switch during the turn applies from the next one.
      const result = await runLoop({
        get client() {
          return controls.model.client;
        },
        get request() {
          return request();
        },
        get contextWindow() {
          return controls.model.info.contextWindow;
        },
        get modelMaxTokens() {
          return controls.model.info.maxTokens;
        },
        limits: this.#s.limits,
        conversation: this.#s.conversation,
        meter: this.#s.meter,
        registry: this.#s.tools.registry,
        calls: this.#callContext(mode, signal, emit),
        emit,
        signal,
        stats,
        inbox: this.#s.inbox,
      });
      if (result.cutOff) this.#s.notes.push(CUT_NOTE);
      this.#lastSteps = result.steps;
      this.end(result.stopReason);
      return result.stopReason;
    } catch (error) {
      this.#lastSteps = stats.steps;
      this.end("error");
      throw error;
    }
  }

  #callContext(mode: Mode, signal: AbortSignal, emit: EventSink): CallContext {
    const { controls, limits, meter, tools, childModels } = this.#s;
    const calls = turnCallContext(this.#s.options, { root: this.#s.root, mode, signal, emit });
    return withSubagents(calls, { controls, limits, meter, registry: () => tools.registry, childModels });
  }
}
