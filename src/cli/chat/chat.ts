// `garuda`: the terminal chat over the same Runtime as `garuda acp`. Prompts go to runTurn and
// its events stream to the screen (Transcript); questions come through the TerminalApprover;
// Ctrl-C or Esc stops a turn (the same cancel as over ACP), and a second Ctrl-C at the prompt exits.
// Lines starting with "/" are built-in commands, custom commands or skills; a line starting with
// "!" is the user's own shell command (shellCommand.ts). On a terminal it uses
// raw mode and a line editor; in a pipe it reads lines and writes plain text, no colours.
// This file is the chat itself (its prompt loop, its turns, the runtime it swaps on /clear and
// /fork); runChat.ts is the process around it, typedDuringTurn.ts what is typed while a turn runs.
import type { ModelInfo } from "../../model/catalog.ts";
import type { Mode } from "../../core-types/mode.ts";
import type { Runtime } from "../../runtime/runtime.ts";
import { VERSION } from "../../version.ts";
import { visible } from "../../text/visible.ts";
import type { CliContext } from "../context.ts";
import { describeFailure } from "../errors.ts";
import { TerminalApprover } from "./approver.ts";
import { TerminalAsker } from "./asker.ts";
import { OpenCalls } from "./calls.ts";
import { type CommandHost, runBuiltin, switchMode } from "./commands.ts";
import { chatCompletion, ProjectFiles } from "./completionSource.ts";
import { ProjectHistory } from "./history.ts";
import type { ChatInput } from "./input.ts";
import { MarkdownLoader } from "./markdown/loader.ts";
import { MarkdownStream } from "./markdown/stream.ts";
import { chooseSession, type ResumeRequest, showResumed } from "./resume.ts";
import type { Screen } from "./screen.ts";
import { Spinner } from "./spinner.ts";
import type { StatusLine } from "./statusLine.ts";
import { runtimeStarter, type StartRuntime } from "./startRuntime.ts";
import type { Style } from "./style.ts";
import { Transcript } from "./transcript.ts";
import { TranscriptLog } from "./transcriptLog.ts";
import type { HeldOutput } from "./heldOutput.ts";
import { TurnTranscript } from "./turnTranscript.ts";
import { startFailed } from "./firstRun.ts";
import { startInFork } from "./forkStart.ts";
import { askProjectTrust } from "./trustQuestion.ts";
import { runTurn, showTurnEnd } from "./turn.ts";
import { runShellCommand, shellCommandOf } from "./shellCommand.ts";
import { TypedDuringTurn } from "./typedDuringTurn.ts";

export interface ChatOptions {
  model?: string | undefined;
  mode: Mode;
  hideThinking: boolean;
  resume?: ResumeRequest;
  /** `garuda "task"`: the first prompt, sent as if typed once the chat has started. */
  prompt?: string;
}

export class Chat implements CommandHost {
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
  /** The draft, the queued prompts and the steering typed while a turn runs. */
  readonly #typed: TypedDuringTurn;
  /** Ctrl-O during a turn: the transcript view over it (a terminal only). */
  readonly #turnTranscript: TurnTranscript | undefined;

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
          typing: () => this.#typed.row(),
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
        typing: () => this.#typed.draft,
      });
    this.approver = new TerminalApprover({ input, screen, style, beforeQuestion });
    this.asker = new TerminalAsker({
      input,
      screen,
      style,
      beforeQuestion,
      oneAtATime: (ask) => this.approver.oneAtATime(ask),
    });
    this.#typed = new TypedDuringTurn({
      input,
      transcript: this.transcript,
      style,
      runtime: () => this.runtime,
      changed: () => this.#spinner?.redraw(),
      openTranscript: () => this.#turnTranscript?.open(),
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

  /** /fork: the session's file copied to a new session (forkStart.ts), which the chat then goes on in. */
  async fork(): Promise<{ parent: string; fork: string } | { refused: string }> {
    const old = this.runtime;
    const forked = await startInFork(old, (resume) =>
      this.start({
        root: this.root,
        modelFlag: old.model.spec,
        approver: this.approver,
        asker: this.asker,
        mode: old.mode,
        resume,
      }),
    );
    if ("refused" in forked) return forked;
    await old.close();
    this.#runtime = forked.started.runtime;
    this.statusLine?.attach(forked.started.runtime);
    return { parent: forked.parent, fork: forked.fork };
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
      this.setupWanted = await startFailed(error, { input: this.input, screen, style });
      return this.setupWanted ? 0 : 1;
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
      const queued = this.#typed.nextQueued();
      if (queued !== undefined) {
        // A prompt typed during the last turn runs now, shown as if typed at the prompt.
        screen.line(`${this.#prompt()}${visible(queued)}`);
        await this.#handle(queued);
        continue;
      }
      const result = await this.input.readPrompt(this.#prompt(), "  ", draft || this.#typed.takeLeftover());
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
    this.#typed.editNext(text);
  }

  async #turnFor(prompt: string): Promise<void> {
    const controller = new AbortController();
    this.#turn = controller;
    this.input.onInterrupt(() => {
      this.markdownStream?.stop();
      controller.abort();
    });
    this.#typed.begin();
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
      showTurnEnd(outcome, this);
      if (outcome.reason === "cancelled") this.#typed.dropAfterStop();
    } finally {
      // A transcript view open when the turn ended stays until the user leaves it.
      await this.#turnTranscript?.closed();
      this.#typed.end();
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
