// The Runtime's AgentEvents as lines in a terminal or a log: the answer streams as it comes, the
// model's thinking dimmed (or one collapsed line, or hidden), every tool call one line with its
// title (the ACP titles, through oneLine), its progress and its result; in the chat, the plan
// and what the spinner names too. The chat writes everything to stdout; `garuda run` writes the
// answer to stdout and the rest to stderr, so a script gets the answer alone.
import type { AgentEvent, PlanItem } from "../../core-types/events.ts";
import { oneLine, safeText, visible } from "../../text/visible.ts";
import type { OpenCalls } from "./calls.ts";
import type { Screen } from "./screen.ts";
import type { Style } from "./style.ts";
import { commandOutputLines, firstLine, fitLine, lastLine, plural, tokens } from "./text.ts";
import { callTitle, serverToolTitle } from "../../display/callTitle.ts";
import { retryNotice } from "../../runtime/retryNotice.ts";
import { hangingWrap } from "../wrap.ts";
import type { MarkdownStream } from "./markdown/stream.ts";
import type { Spinner } from "./spinner.ts";
import { planRows } from "./planView.ts";
import type { TranscriptLog } from "./transcriptLog.ts";
import { stripAnsi } from "./style.ts";

export interface TranscriptOptions {
  /** Where the answer goes. */
  answer: Screen;
  /** Where tool calls, thinking and Garuda's own lines go (the same screen in the chat). */
  activity: Screen;
  style: Style;
  showThinking: boolean;
  calls: OpenCalls;
  /** The line shown while the model works (a terminal only). */
  workingHint?: string;
  /** The chat on a terminal: a spinner with the turn's time, instead of workingHint. */
  spinner?: Spinner;
  /** The chat on a terminal with colours: the answer rendered as Markdown as it streams. */
  markdown?: MarkdownStream;
  /** Thinking as one line, "✻ Thinking… (Ctrl-O to show)", its text in the log only (the chat on a terminal). */
  collapseThinking?: boolean;
  /** Everything of the turn kept whole for the transcript view (Ctrl-O): answer, thinking, calls and their output. */
  log?: TranscriptLog;
  /**
   * Show the model's plan: live above the spinner while it has steps to do, whole at the end of a turn that changed it.
   */
  plan?: boolean;
  /** Show the last lines a command printed under its result (the chat: its live line is gone by then). */
  commandOutput?: boolean;
}

/** How many of a command's last lines its result shows: a failure's error, a success's last word. */
export const OUTPUT_TAIL = { failed: 6, completed: 2 } as const;
/** Where lines are not cut to a terminal (a log), they still stop somewhere. */
const LOG_WIDTH = 500;

/** A call the permission engine or a hook denied, for `garuda run`'s report. */
export interface DeniedCall {
  title: string;
  reason: string;
}

const DENIED_PREFIX = "Permission denied: ";

export class Transcript {
  readonly #o: TranscriptOptions;
  /** What was written last: the answer, thinking, or a line about a call or from Garuda. */
  #block: "none" | "text" | "thinking" | "activity" = "none";
  /** The call whose line (or progress) was the last thing shown. */
  #lastCall: string | undefined;
  readonly #progress = new Map<string, string>();
  /** Commands (bash calls) of this turn, and on a log the output lines their progress already showed. */
  readonly #commands = new Map<string, Set<string>>();
  #text = "";
  readonly #denied: DeniedCall[] = [];
  /** The model's plan (the todo tool's list) as last sent, and whether this turn changed it. */
  #plan: readonly PlanItem[] = [];
  #planChanged = false;
  /** What the spinner names for each call running now, in the order they began. */
  readonly #running = new Map<string, string>();

  constructor(options: TranscriptOptions) {
    this.#o = options;
  }

  /** The answer text of the turn so far. */
  get text(): string {
    return this.#text;
  }

  get denied(): readonly DeniedCall[] {
    return this.#denied;
  }

  beginTurn(): void {
    this.#block = "none";
    this.#lastCall = undefined;
    this.#progress.clear();
    this.#commands.clear();
    this.#text = "";
    this.#denied.length = 0;
    this.#running.clear();
    this.#planChanged = false;
    this.#o.calls.beginTurn();
    this.#working();
  }

  /** Ends the turn's output on a line of its own. */
  endTurn(): void {
    const { answer, activity, markdown, spinner } = this.#o;
    if (this.#block === "text") markdown?.finish();
    spinner?.stop();
    activity.status(undefined);
    answer.endLine();
    if (activity !== answer) activity.endLine();
    // The plan as the turn left it, for good (the live one went with the spinner).
    if (this.#o.plan && this.#planChanged && this.#plan.length > 0) {
      this.#startActivity();
      activity.line(planRows(this.#plan, this.#o.style).join("\n"));
    }
  }

  /** The plan's rows for the live region: while a step is still to do, cut to fit the window. */
  livePlan(): string[] {
    if (!this.#o.plan || this.#plan.every((item) => item.status === "completed")) return [];
    // The rest of the live region (answer tail, progress, spinner, typing, status) keeps most of the window.
    return planRows(this.#plan, this.#o.style, Math.max(1, Math.min(8, this.#o.activity.rows - 14)));
  }

  /** A new conversation (/clear): its plan starts empty. */
  clearPlan(): void {
    this.#plan = [];
    this.#planChanged = false;
  }

  event(event: AgentEvent): void {
    switch (event.type) {
      case "text_delta":
        this.#answer(event.text);
        return;
      case "thinking_delta":
        this.#thinking(event.text);
        return;
      case "tool_call":
        if (event.parentCallId !== undefined) return;
        if (event.tool === "bash") this.#commands.set(event.callId, new Set());
        this.#call(event.callId, callTitle(event.tool, event.info));
        return;
      case "tool_start":
        // The call's line is already shown; its output or result says the rest. After a
        // question the spinner comes back.
        if (event.parentCallId === undefined && !this.#o.calls.stopped) this.#o.spinner?.start();
        return;
      case "tool_progress":
        if (event.parentCallId === undefined) this.#showProgress(event.callId, event.text);
        return;
      case "tool_result":
        if (event.parentCallId === undefined) this.#result(event);
        return;
      case "server_tool":
        if (event.status === "started") this.#call(event.callId, serverToolTitle(event.info), true);
        else this.#finished(event.callId, "completed", event.summary);
        return;
      case "notice":
        this.notice(event.text, event.level);
        return;
      case "compaction":
        this.notice(
          `the conversation was compacted to make room (${tokens(event.beforeTokens)} → ` +
            `${tokens(event.afterTokens)} tokens).`,
        );
        return;
      case "model_retry":
        this.notice(retryNotice(event, event.delayMs > 0 ? `in ${Math.ceil(event.delayMs / 1000)} s` : ""), "warning");
        return;
      case "plan":
        this.#plan = event.items.map((item) => ({ content: item.content, status: item.status }));
        this.#planChanged = true;
        this.#o.spinner?.redraw();
        return;
      case "step_end":
      case "title":
      case "subagent":
        return;
      case "steering":
        // Where the model got it: after the results of the calls that were running.
        this.note(`${this.#fit(visible(event.text), "› ", "  ")} ${this.#o.style.dim("(steering)")}`);
        return;
    }
  }

  /** A line of the chat's own about the turn (a prompt queued or a steering message sent), as it is given. */
  note(line: string): void {
    this.#o.log?.note(stripAnsi(line));
    this.#startActivity();
    this.#o.activity.line(line);
    this.#lastCall = undefined;
  }

  /** A line from Garuda itself ("Garuda: …"). */
  notice(text: string, level: "info" | "warning" = "info"): void {
    const { activity, style } = this.#o;
    this.#o.log?.note(`Garuda: ${visible(text)}`);
    this.#startActivity();
    const line = this.#fit(visible(text), "Garuda: ", "        ");
    activity.line(level === "warning" ? style.yellow(line) : line);
    this.#lastCall = undefined;
  }

  /**
   * On a terminal, `text` wrapped at words to the window, `first` before it and `rest` before each
   * line it continues on, so no line breaks mid-word at the window's edge; a log gets one line.
   */
  #fit(text: string, first: string, rest: string): string {
    const { activity } = this.#o;
    return activity.live ? hangingWrap(text, activity.columns - 1, first, rest) : `${first}${text}`;
  }

  /** Something else was written (a question): the next line about a call names its call. */
  interrupted(): void {
    this.#o.spinner?.pause();
    this.#startActivity();
    this.#lastCall = undefined;
  }

  /** A call that had no result by the end of the settle window. */
  closedByStop(title: string): void {
    this.#resultLine(undefined, title, false, "Cancelled.");
  }

  #answer(text: string): void {
    if (text === "") return;
    const { answer, activity, markdown, spinner } = this.#o;
    if (this.#block !== "text") {
      spinner?.label(undefined);
      if (spinner) spinner.progress(undefined);
      else activity.status(undefined);
      if (this.#block === "thinking") activity.endLine();
      if (this.#block === "activity" || this.#block === "thinking") {
        if (answer === activity) answer.line();
        else answer.endLine();
      }
      this.#block = "text";
      // Text after a call or thinking starts a line of its own, in the answer too.
      if (this.#text !== "" && !this.#text.endsWith("\n")) this.#text += "\n";
    }
    this.#text += text;
    this.#o.log?.answer(text);
    if (markdown) markdown.append(text);
    else answer.write(safeText(text));
  }

  #thinking(text: string): void {
    if (text === "") return;
    this.#o.spinner?.label("Thinking…");
    if (!this.#o.showThinking) return;
    const { activity, style, log, collapseThinking } = this.#o;
    log?.thinking(text);
    if (this.#block !== "thinking") {
      this.#startActivity();
      activity.line(style.dim(collapseThinking ? "✻ Thinking… (Ctrl-O to show)" : "✻ Thinking"));
      this.#block = "thinking";
    }
    if (!collapseThinking) activity.write(style.dim(style.italic(safeText(text))));
  }

  /** Before a line about a call or from Garuda: the answer's line ends, thinking gets a gap. */
  #startActivity(): void {
    const { answer, activity, markdown } = this.#o;
    if (this.#block === "text") {
      markdown?.finish();
      answer.endLine();
      if (answer === activity) activity.line();
    } else if (this.#block === "thinking") {
      activity.endLine();
      activity.line();
    }
    this.#block = "activity";
  }

  #call(id: string, title: string, server = false): void {
    const { activity, style, calls } = this.#o;
    calls.add({ id, title, ...(server && { server: true }) });
    this.#o.log?.call(title);
    // The spinner names what runs: a command as "Running $ …", any other call by its title.
    this.#running.set(id, `${title.startsWith("$ ") ? `Running ${title}` : title}…`);
    this.#o.spinner?.label(this.#running.get(id));
    this.#startActivity();
    activity.line(`${style.cyan("●")} ${style.bold(this.#fit(title, "", "  "))}`);
    this.#lastCall = id;
  }

  #showProgress(id: string, text: string): void {
    const { activity, style, calls } = this.#o;
    const call = calls.open(id);
    if (!call || calls.stopped) return;
    const line = oneLine(lastLine(text), 300);
    if (line === "") return;
    const prefix = this.#lastCall === id ? "  │ " : `  │ ${call.title}: `;
    if (activity.live) {
      if (this.#o.spinner) this.#o.spinner.progress(style.dim(`${prefix}${line}`));
      else activity.status(style.dim(`${prefix}${line}`));
      return;
    }
    if (this.#progress.get(id) === line) return;
    this.#progress.set(id, line);
    this.#commands.get(id)?.add(line);
    this.#startActivity();
    activity.line(style.dim(`${prefix}${line}`));
  }

  #result(event: Extract<AgentEvent, { type: "tool_result" }>): void {
    const { calls } = this.#o;
    const afterStop = calls.endedByStop(event.callId);
    const title = calls.open(event.callId)?.title;
    if (event.status === "denied" && title !== undefined) {
      this.#denied.push({
        title,
        reason: event.output.startsWith(DENIED_PREFIX) ? event.output.slice(DENIED_PREFIX.length) : event.output,
      });
    }
    if (title !== undefined) this.#o.log?.output(title, event.output);
    // A call the stop ended is cancelled, even when its command still returned a result.
    const status = afterStop ? "cancelled" : event.status;
    this.#finished(event.callId, status, event.summary ?? event.output, event.output);
  }

  /** A command's last lines under its result, dimmed; on a log, those its progress did not show. */
  #commandOutput(id: string, status: "completed" | "failed", output: string): void {
    const { activity, style, commandOutput } = this.#o;
    const progressed = this.#commands.get(id);
    if (!commandOutput || !progressed) return;
    const lines = commandOutputLines(output);
    const tail = lines
      .slice(-OUTPUT_TAIL[status])
      .filter((line) => activity.live || !progressed.has(oneLine(line, 300)));
    if (tail.length === 0) return;
    const width = (activity.live ? activity.columns - 1 : LOG_WIDTH) - 4;
    const earlier = lines.length - Math.min(lines.length, OUTPUT_TAIL[status]);
    const shown = tail.map((line) => `    ${fitLine(line, width)}`);
    if (earlier > 0) shown.unshift(`    … ${plural(earlier, "earlier line")} not shown`);
    activity.line(style.dim(shown.join("\n")));
  }

  /** The call's result line (`text`), and for a command the end of its `output`. */
  #finished(id: string, status: "completed" | "failed" | "denied" | "cancelled", text: string, output = ""): void {
    const { calls } = this.#o;
    const call = calls.finish(id);
    if (!call) return;
    this.#running.delete(id);
    this.#o.spinner?.label([...this.#running.values()].at(-1));
    const detail = oneLine(firstLine(text, 300), 200);
    if (status === "completed") this.#resultLine(id, call.title, true, detail || "Done.");
    else if (status === "cancelled") this.#resultLine(id, call.title, false, "Cancelled.");
    else this.#resultLine(id, call.title, false, detail || (status === "denied" ? "Denied." : "Failed."));
    if (status === "completed" || status === "failed") this.#commandOutput(id, status, output);
    this.#progress.delete(id);
    if (!calls.stopped) this.#working();
  }

  /** "  ⎿ 12 lines" under its call, or "  ⎿ Read a.txt: 12 lines" when other lines came between. */
  #resultLine(id: string | undefined, title: string, ok: boolean, detail: string): void {
    const { activity, style } = this.#o;
    this.#startActivity();
    const text = this.#lastCall === id && id !== undefined ? detail : `${title}: ${detail}`;
    const fitted = this.#fit(text, ok ? "  ⎿ " : "  ✗ ", "    ");
    activity.line(ok ? style.dim(fitted) : style.red(fitted));
    this.#lastCall = undefined;
  }

  #working(): void {
    const { activity, style, workingHint, spinner } = this.#o;
    if (spinner) {
      spinner.progress(undefined);
      spinner.start();
    } else if (workingHint && activity.live) activity.status(style.dim(workingHint));
  }
}
