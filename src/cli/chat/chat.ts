// `garuda`: the terminal chat over the same Runtime as `garuda acp`. Prompts go to runTurn and
// its events stream to the screen (Transcript); questions come through the TerminalApprover;
// Ctrl-C or Esc stops a turn (the same cancel as over ACP), and a second Ctrl-C at the prompt exits.
// Lines starting with "/" are built-in commands, custom commands or skills; a line starting with
// "!" is the user's own shell command (shellCommand.ts). On a terminal it uses
// raw mode and a line editor; in a pipe it reads lines and writes plain text, no colours.
import { ConfigError, SetupRequiredError } from "../../errors/configError.ts";
import type { ModelInfo } from "../../model/catalog.ts";
import { ModelError } from "../../model/types.ts";
import type { Mode } from "../../core-types/mode.ts";
import type { Runtime } from "../../runtime/runtime.ts";
import { VERSION } from "../../version.ts";
import { oneLine, visible } from "../../text/visible.ts";
import { stopNote } from "../../display/stopNotes.ts";
import { type CliContext, createCliContext } from "../context.ts";
import { describeFailure } from "../errors.ts";
import { TerminalApprover } from "./approver.ts";
import { TerminalAsker } from "./asker.ts";
import { OpenCalls } from "./calls.ts";
import { type CommandHost, runBuiltin, switchMode } from "./commands.ts";
import { chatCompletion, ProjectFiles } from "./completionSource.ts";
import { ProjectHistory } from "./history.ts";
import { type ChatInput, LineInput } from "./input.ts";
import { MarkdownLoader } from "./markdown/loader.ts";
import { MarkdownStream } from "./markdown/stream.ts";
import { chooseSession, type ResumeRequest, showResumed } from "./resume.ts";
import { Screen } from "./screen.ts";
import { Spinner } from "./spinner.ts";
import { StatusLine } from "./statusLine.ts";
import { runtimeStarter, type StartRuntime } from "./startRuntime.ts";
import { styleFor, type Style, terminalMode } from "./style.ts";
import { TerminalInput } from "./terminalInput.ts";
import { Transcript } from "./transcript.ts";
import { TranscriptLog } from "./transcriptLog.ts";
import { HeldOutput } from "./heldOutput.ts";
import { TurnTranscript } from "./turnTranscript.ts";
import { offerSetup } from "./firstRun.ts";
import { reportCrashes } from "./exit.ts";
import { askProjectTrust } from "./trustQuestion.ts";
import { runTurn } from "./turn.ts";
import { runShellCommand, shellCommandOf } from "./shellCommand.ts";
import { TurnDraft } from "./turnTyping.ts";
import { MAX_QUEUED_PROMPTS } from "../../runtime/promptQueue.ts";

export interface ChatOptions {
  model?: string | undefined;
  mode: Mode;
  hideThinking: boolean;
  resume?: ResumeRequest;
  /** `garuda "task"`: the first prompt, sent as if typed once the chat has started. */
  prompt?: string;
}

const SIGNAL_EXIT = { SIGTERM: 143, SIGHUP: 129 } as const;
/** After SIGTERM or SIGHUP, the chat is gone within this long even if closing the session is not done. */
const SIGNAL_EXIT_MS = 800;

class Chat implements CommandHost {
  readonly start: StartRuntime;
  readonly root = process.cwd();
  /** The first run in a terminal: no model or key, and the user said yes to running setup now. */
  setupWanted = false;
  readonly calls = new OpenCalls();
  /** The conversation kept whole for the transcript view (Ctrl-O). */
  readonly log = new TranscriptLog();
  readonly transcript: Transcript;
  readonly approver: TerminalApprover;
  /** The model's questions (ask_user), on the approver's queue. */
  readonly asker: TerminalAsker;
  #runtime: Runtime | undefined;
  #exiting = false;
  #turn: AbortController | undefined;
  /** The Markdown libraries, loaded before the first turn (a terminal with colours only). */
  readonly #markdown: MarkdownLoader | undefined;
  readonly markdownStream: MarkdownStream | undefined;
  readonly #spinner: Spinner | undefined;
  /** What the user types while a turn runs (a terminal only). */
  #typed: TurnDraft | undefined;
  /** Prompts typed during a turn (Enter), to run after it, in order. */
  readonly #queued: string[] = [];
  /** Ctrl-O during a turn: the transcript view over it (a terminal only). */
  readonly #turnTranscript: TurnTranscript | undefined;
  /** What was typed during the last turn and not sent: the next prompt's draft. */
  #leftover = "";

  constructor(
    readonly ctx: CliContext,
    readonly input: ChatInput,
    readonly screen: Screen,
    readonly style: Style,
    private readonly options: ChatOptions,
    /** The model, mode, context and cost line (a terminal only). */
    readonly statusLine?: StatusLine,
    /** The screen's output, held while the transcript view covers a running turn (a terminal only). */
    output?: HeldOutput,
  ) {
    this.start = runtimeStarter(ctx);
    this.#markdown = screen.live && style.enabled ? new MarkdownLoader() : undefined;
    this.markdownStream = this.#markdown && new MarkdownStream({ screen, style, loader: this.#markdown });
    const spinner = screen.live
      ? new Spinner({
          screen,
          style,
          footer: () => statusLine?.text(),
          typing: () => this.#typed?.row(),
          above: () => this.transcript.livePlan(),
        })
      : undefined;
    this.#spinner = spinner;
    this.transcript = new Transcript({
      answer: screen,
      activity: screen,
      style,
      showThinking: !options.hideThinking,
      calls: this.calls,
      workingHint: "Working… (Ctrl-C to stop)",
      commandOutput: true,
      plan: true,
      log: this.log,
      // On a terminal the thinking is one line; Ctrl-O shows it (a pipe gets it whole, as before).
      collapseThinking: screen.live && input.interactive,
      ...(spinner && { spinner }),
      ...(this.markdownStream && { markdown: this.markdownStream }),
    });
    // Outside a turn (a background command's question, asked aside the prompt) the blank row above
    // the prompt already parts it from the last answer: the transcript adds no second one.
    const beforeQuestion = () => {
      // A question is seen and answered on the chat's screen: the transcript view closes.
      void this.#turnTranscript?.close();
      if (this.#turn) this.transcript.interrupted();
    };
    this.#turnTranscript =
      output &&
      new TurnTranscript({
        input,
        output,
        screen,
        style,
        lines: () => this.log.lines(style),
        typing: () => this.#typed,
      });
    this.approver = new TerminalApprover({ input, screen, style, beforeQuestion });
    this.asker = new TerminalAsker({
      input,
      screen,
      style,
      beforeQuestion,
      oneAtATime: (ask) => this.approver.oneAtATime(ask),
    });
  }

  get runtime(): Runtime {
    if (!this.#runtime) throw new Error("The chat has no session yet.");
    return this.#runtime;
  }

  /** The model in use: /model switches it in the runtime, and the conversation goes on. */
  get model(): ModelInfo {
    return this.runtime.model;
  }

  get paths() {
    return this.ctx.paths;
  }

  exit(): void {
    this.#exiting = true;
  }

  async restart(): Promise<void> {
    const old = this.runtime;
    const next = await this.start({
      root: this.root,
      modelFlag: old.model.spec,
      approver: this.approver,
      asker: this.asker,
      mode: old.mode,
    });
    await old.close();
    this.#runtime = next.runtime;
    this.statusLine?.attach(next.runtime);
    this.transcript.clearPlan();
  }

  /** /fork: the session's file copied to a new session (store/sessionFork.ts), which the chat then goes on in. */
  async fork(): Promise<{ parent: string; fork: string } | { refused: string }> {
    const old = this.runtime;
    const session = old.session;
    if (!session?.file) return { refused: "Nothing to fork yet: this conversation has no messages." };
    const [{ forkSession }, { removeSession }, { readSession }] = await Promise.all([
      import("../../store/sessionFork.ts"),
      import("../../store/sessionCatalog.ts"),
      import("../../store/sessionFile.ts"),
    ]);
    const forked = forkSession({ parentFile: session.file, parentId: session.id, data: readSession(session.file) });
    let next: Awaited<ReturnType<StartRuntime>>;
    try {
      next = await this.start({
        root: this.root,
        modelFlag: old.model.spec,
        approver: this.approver,
        asker: this.asker,
        mode: old.mode,
        resume: forked,
      });
    } catch (error) {
      removeSession(forked);
      forked.lock.release();
      throw error;
    }
    await old.close();
    this.#runtime = next.runtime;
    this.statusLine?.attach(next.runtime);
    return { parent: session.id, fork: forked.id };
  }

  async run(): Promise<number> {
    const { screen, style } = this;
    let resumed: Awaited<ReturnType<typeof chooseSession>>;
    try {
      resumed = this.options.resume
        ? await chooseSession(this.options.resume, {
            sessionsDir: this.ctx.paths.sessions,
            root: this.root,
            input: this.input,
            screen,
            style,
          })
        : undefined;
      const mode = this.options.mode === "plan" ? "plan" : (resumed?.mode ?? "build");
      const started = await this.start({
        root: this.root,
        modelFlag: this.options.model,
        approver: this.approver,
        asker: this.asker,
        mode,
        ...(resumed && { resume: resumed.file }),
        projectTrust: (question) => askProjectTrust(question, { input: this.input, screen, style }),
      });
      this.#runtime = started.runtime;
      this.#useEditing(started.runtime.root);
      this.statusLine?.attach(started.runtime);
    } catch (error) {
      screen.endLine();
      if (error instanceof SetupRequiredError && this.input.interactive && screen.live) {
        this.setupWanted = await offerSetup(error, { input: this.input, screen, style });
        return this.setupWanted ? 0 : 1;
      }
      const text =
        error instanceof SetupRequiredError || error instanceof ConfigError || error instanceof ModelError
          ? `garuda: ${error.message}`
          : describeFailure(error).text;
      process.stderr.write(`${text}\n`);
      return 1;
    }

    screen.line(`${style.bold(`Garuda ${VERSION}`)} · ${this.model.spec} · ${this.runtime.mode} mode`);
    screen.line(style.dim("/help for commands · Esc or Ctrl-C stops a turn · Ctrl-C twice or Ctrl-D exits"));
    if (resumed) showResumed(resumed, { screen, style });

    let interrupted = false;
    let draft = "";
    const first = this.options.prompt;
    if (first !== undefined) {
      screen.line();
      screen.line(`${this.#prompt()}${visible(first)}`);
      this.input.remember?.(first);
      await this.#handle(first);
    }
    while (!this.#exiting) {
      screen.line();
      const queued = this.#queued.shift();
      if (queued !== undefined) {
        // A prompt typed during the last turn runs now, shown as if typed at the prompt.
        screen.line(`${this.#prompt()}${visible(queued)}`);
        await this.#handle(queued);
        continue;
      }
      const result = await this.input.readPrompt(this.#prompt(), "  ", draft || this.#takeLeftover());
      draft = "";
      if (result.kind === "eof") break;
      if (result.kind === "interrupt") {
        if (interrupted) break;
        interrupted = true;
        screen.line(style.dim("(Ctrl-C again to exit, or type /exit)"));
        continue;
      }
      interrupted = false;
      if (result.kind === "rewind") {
        await this.#handle("/rewind");
        continue;
      }
      if (result.kind === "toggle-mode") {
        const next: Mode = this.runtime.mode === "build" ? "plan" : "build";
        await switchMode(this, next, { dim: true });
        draft = result.draft;
        continue;
      }
      if (result.text.trim() === "") continue;
      await this.#handle(result.text);
    }
    await this.close();
    return 0;
  }

  /** The project's prompt history and Tab's candidates (commands of the session in use, files of the root). */
  #useEditing(root: string): void {
    const { screen, style } = this;
    this.input.useEditing?.({
      history: new ProjectHistory(this.ctx.paths.history, root, (text) => screen.line(style.yellow(text))),
      completion: chatCompletion({
        commands: () => this.runtime.availableCommands(),
        files: new ProjectFiles(root, this.ctx.paths.home, undefined, () => this.runtime.withheld),
      }),
      transcript: { lines: () => this.log.lines(style), style },
    });
  }

  #prompt(): string {
    const { style } = this;
    return `${this.runtime.mode === "plan" ? style.magenta("plan ") : ""}${style.bold(style.cyan("›"))} `;
  }

  async #handle(text: string): Promise<void> {
    const runtime = this.runtime;
    const shell = shellCommandOf(text);
    if (shell !== undefined) {
      await this.#shell(shell);
      return;
    }
    if (text.trimStart().startsWith("/")) {
      // "/" alone asks what the commands are; it is no prompt for the model.
      const command =
        text.trim() === "/" ? ({ kind: "builtin", name: "help", args: "" } as const) : runtime.resolveCommand(text);
      if (command.kind === "builtin") {
        try {
          await runBuiltin(command.name, command.args, this);
        } catch (error) {
          this.screen.line(this.style.red(describeFailure(error).text));
        }
        return;
      }
      if (command.kind === "unknown") {
        this.screen.line(`/${command.name} is not a command. /help lists them.`);
        return;
      }
      await this.#turnFor(command.text);
      return;
    }
    await this.#turnFor(text);
  }

  /** `!cmd`: the user's own command, stopped by Ctrl-C as a turn is (shellCommand.ts). */
  async #shell(command: string): Promise<void> {
    const controller = new AbortController();
    this.#turn = controller;
    this.input.onInterrupt(() => controller.abort());
    try {
      const { transcript, screen, style } = this;
      await runShellCommand(command, { runtime: this.runtime, transcript, screen, style, signal: controller.signal });
    } finally {
      this.input.onInterrupt(undefined);
      this.#turn = undefined;
    }
  }

  editNext(text: string): void {
    this.#leftover = text;
  }

  #takeLeftover(): string {
    const text = this.#leftover;
    this.#leftover = "";
    return text;
  }

  /** While the turn runs, what is typed is a draft: Enter queues it, Tab steers with it (turnTyping.ts). */
  #typeDuringTurn(): TurnDraft | undefined {
    if (!this.input.typeDuringTurn) return undefined;
    const { transcript, style } = this;
    const queue = (text: string) => {
      if (this.#queued.length >= MAX_QUEUED_PROMPTS) {
        transcript.notice(
          `${MAX_QUEUED_PROMPTS} prompts already wait for this turn; this one stays in your draft.`,
          "warning",
        );
        return false;
      }
      this.#queued.push(text);
      transcript.note(style.dim(`⧗ Queued, runs after this turn: ${oneLine(text, 200)}`));
      return true;
    };
    const typed = new TurnDraft(
      {
        queue,
        steer: (text) => {
          const put = this.runtime.steer(text);
          if ("refused" in put) {
            transcript.notice(put.refused, "warning");
            return false;
          }
          // The turn is ending: the message runs after it instead.
          if ("idle" in put) return queue(text);
          transcript.note(style.dim(`↪ Steering, for the model's next step: ${oneLine(text, 200)}`));
          return true;
        },
        changed: () => this.#spinner?.redraw(),
        transcript: () => this.#turnTranscript?.open(),
      },
      this.#takeLeftover(),
    );
    this.input.typeDuringTurn(typed);
    return typed;
  }

  async #turnFor(prompt: string): Promise<void> {
    const { screen, style } = this;
    const controller = new AbortController();
    this.#turn = controller;
    this.input.onInterrupt(() => {
      this.markdownStream?.stop();
      controller.abort();
    });
    this.#typed = this.#typeDuringTurn();
    this.log.prompt(prompt);
    try {
      await this.#markdown?.load();
      const outcome = await runTurn({
        runtime: this.runtime,
        prompt,
        transcript: this.transcript,
        calls: this.calls,
        signal: controller.signal,
        tap: (event) => {
          if (event.type === "usage") this.statusLine?.update(event);
        },
      });
      if (outcome.reason === "error")
        screen.line(
          style.red(
            outcome.error instanceof ModelError
              ? `Error: ${visible(outcome.error.message)}`
              : describeFailure(outcome.error).text,
          ),
        );
      else {
        const note = stopNote(outcome.reason);
        if (note) this.transcript.notice(`${note.slice(0, -1)} (${outcome.reason}).`, "warning");
      }
      // A stop drops what was queued behind the turn, and says so.
      if (outcome.reason === "cancelled" && this.#queued.length > 0) {
        const count = this.#queued.splice(0).length;
        this.transcript.notice(
          count === 1
            ? "the prompt queued behind this turn was dropped; it did not run."
            : `the ${count} prompts queued behind this turn were dropped; none of them ran.`,
          "warning",
        );
      }
    } finally {
      // A transcript view open when the turn ended stays until the user leaves it.
      await this.#turnTranscript?.closed();
      this.input.typeDuringTurn?.(undefined);
      this.#leftover = this.#typed?.text ?? "";
      this.#typed = undefined;
      this.input.onInterrupt(undefined);
      this.#turn = undefined;
    }
  }

  /** Stops a running turn and closes the session (every command it started is killed). */
  async close(): Promise<void> {
    this.#exiting = true;
    // The terminal's own screen back first (the view is on its alternate screen).
    await this.#turnTranscript?.close();
    this.#turn?.abort();
    const runtime = this.#runtime;
    this.#runtime = undefined;
    this.statusLine?.detach();
    if (!runtime) return;
    const session = runtime.session;
    await runtime.close();
    if (session)
      this.screen.line(
        this.style.dim(`Conversation ${visible(session.id)} saved. Continue it with: garuda --continue`),
      );
  }
}

/** Runs the chat until /exit, Ctrl-D or Ctrl-C twice; returns the exit code. */
export async function runChat(options: ChatOptions): Promise<number> {
  const ctx = createCliContext(process.env);
  const first = await chatOnce(ctx, options);
  if (first.setupWanted !== true) return first.code;
  // The first run's setup, in this terminal: the chat's input has let go of it.
  const { runSetup } = await import("../setup/run.ts");
  // A model named with -m is the one set up (no model menu).
  const setup = await runSetup({ context: ctx, ...(options.model && { model: options.model }) });
  if (setup !== 0) return setup;
  process.stdout.write("\n");
  return (await chatOnce(ctx, options)).code;
}

async function chatOnce(ctx: CliContext, options: ChatOptions): Promise<{ code: number; setupWanted?: boolean }> {
  const mode = terminalMode(process.stdin, process.stdout, process.env);
  const style = styleFor(mode.output === "terminal", process.env);
  const output = new HeldOutput(process.stdout);
  const screen = new Screen(output, mode.output === "terminal", mode.input === "keys");
  const statusLine = screen.live ? new StatusLine(style) : undefined;
  const input: ChatInput =
    mode.input === "keys"
      ? new TerminalInput(process.stdin, screen, { footer: () => statusLine?.text(), mark: (line) => style.cyan(line) })
      : new LineInput(process.stdin, screen, mode.input === "echoed-lines");
  const chat = new Chat(ctx, input, screen, style, options, statusLine, screen.live ? output : undefined);
  // A resized window: the answer's unfinished block and the status rows are drawn again to it.
  const onResize = () => (chat.markdownStream ? chat.markdownStream.resized() : screen.resized());
  process.stdout.on("resize", onResize);
  // SIGTERM or SIGHUP: stop the turn, close the session (its commands are killed), exit 143 or 129.
  let stopping: Promise<never> | undefined;
  const onSignal = (signal: keyof typeof SIGNAL_EXIT) => () => {
    const leave = () => {
      input.close();
      return process.exit(SIGNAL_EXIT[signal]);
    };
    // Whatever the close waits for, the chat ends within SIGNAL_EXIT_MS, the terminal restored.
    setTimeout(leave, SIGNAL_EXIT_MS).unref?.();
    stopping ??= chat
      .close()
      .catch(() => {})
      .then(leave);
  };
  const stopReporting = reportCrashes(() => input.close());
  const handlers = Object.keys(SIGNAL_EXIT).map((name) => {
    const signal = name as keyof typeof SIGNAL_EXIT;
    const handler = onSignal(signal);
    process.on(signal, handler);
    return () => process.off(signal, handler);
  });
  try {
    const code = await chat.run();
    // A signal's exit wins over the chat's own end.
    if (stopping) await stopping;
    return { code, setupWanted: chat.setupWanted };
  } finally {
    for (const off of handlers) off();
    stopReporting();
    process.stdout.off("resize", onResize);
    input.close();
  }
}
