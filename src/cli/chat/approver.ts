// The terminal's Approver: the same ApprovalRequest the editor gets over ACP, shown as a
// question — headerText, the note, the preview through previewText (hidden characters visible,
// the warning line first), the diff coloured, the scope of "Allow for this session" — answered
// with one key: y (once), s (session), n (deny). A file change with more than one hunk can be
// reviewed hunk by hunk (h): the file then gets only the accepted hunks (U0). Questions are
// asked one at a time; a stopped turn answers deny at once.
import type { ApprovalRequest, Approver, Choice, PartialApproval } from "../../permission/types.ts";
import { oneLine, visible } from "../../text/visible.ts";
import { headerText, previewText } from "../approver.ts";
import { capLines, colourDiff, indent, looksLikeDiff } from "./diffView.ts";
import { applyHunks, changeHunks, type Hunk, hunkLines, rejectedNote } from "./hunks.ts";
import type { ChatInput } from "./input.ts";
import type { Screen } from "./screen.ts";
import type { Style } from "./style.ts";

export interface TerminalApproverOptions {
  input: ChatInput;
  screen: Screen;
  style: Style;
  /** Called before a question is shown (the transcript then names the call again in its result). */
  beforeQuestion?: () => void;
}

const ANSWERS: Readonly<Record<string, Choice | "hunks">> = {
  y: "once",
  "1": "once",
  s: "session",
  a: "session",
  "2": "session",
  n: "deny",
  "3": "deny",
  escape: "deny",
  h: "hunks",
  once: "once",
  yes: "once",
  session: "session",
  deny: "deny",
  no: "deny",
  hunks: "hunks",
};

export class TerminalApprover implements Approver {
  #queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: TerminalApproverOptions) {}

  ask(request: ApprovalRequest, signal: AbortSignal): Promise<Choice> {
    return this.#serial(async () => {
      const answer = await this.#question(request, signal, false);
      return typeof answer === "string" ? answer : "once";
    });
  }

  askChange(request: ApprovalRequest, signal: AbortSignal): Promise<Choice | PartialApproval> {
    return this.#serial(() => this.#question(request, signal, true));
  }

  /** One question at a time: parallel calls (a read outside the project, a consent) queue up. */
  #serial<T>(ask: () => Promise<T>): Promise<T> {
    const next = this.#queue.then(ask, ask);
    this.#queue = next.catch(() => {});
    return next;
  }

  async #question(request: ApprovalRequest, signal: AbortSignal, hunksAllowed: boolean): Promise<Choice | PartialApproval> {
    const { screen, style, input } = this.options;
    if (signal.aborted) return "deny";
    const hunks = hunksAllowed && request.change ? changeHunks(request.change.oldText, request.change.newText) : [];
    const canSplit = hunks.length > 1;
    this.options.beforeQuestion?.();
    screen.status(undefined);
    screen.endLine();
    screen.line(style.yellow(style.bold(`? ${headerText(request).split("\n").join("\n  ")}`)));
    if (request.note) screen.line(style.dim(`  (${oneLine(request.note, 500)})`));
    const preview = capLines(previewText(request));
    if (preview.trim() !== "") {
      const shown = request.change || looksLikeDiff(preview) ? colourDiff(preview, style) : preview;
      screen.line(indent(request.hidden ? shown.replace(/^(.*)$/m, (warning) => style.red(warning)) : shown));
    }
    if (request.sessionRules && request.sessionRules.length > 0 && request.choices.includes("session")) {
      screen.line(style.dim(`  “${oneLine(request.labels.session)}” allows: ${request.sessionRules.map((rule) => oneLine(rule)).join(", ")}`));
    }
    const keys = [`y ${request.labels.once}`];
    if (request.choices.includes("session")) keys.push(`s ${request.labels.session}`);
    keys.push(`n ${request.labels.deny}`);
    if (canSplit) keys.push(`h Choose hunks (${hunks.length})`);
    const menu = `  ${keys.map((key) => `[${key.slice(0, 1)}]${key.slice(1)}`).join("   ")}`;
    screen.line(style.cyan(input.interactive ? menu : `${menu}  (type the letter, then Enter)`));
    for (;;) {
      const answer = await input.readAnswer(signal);
      if (answer === undefined || signal.aborted) {
        screen.line(style.red(signal.aborted ? "  → Denied (stopped)." : "  → Denied (no answer)."));
        return "deny";
      }
      const choice = ANSWERS[answer];
      if (choice === "hunks" && canSplit && request.change) {
        const partial = await this.#reviewHunks(request.change.path, request.change.oldText, hunks, signal);
        return partial;
      }
      if (choice !== undefined && choice !== "hunks" && request.choices.includes(choice)) {
        screen.line(choice === "deny" ? style.red(`  → ${request.labels.deny}`) : style.green(`  → ${request.labels[choice]}`));
        return choice;
      }
      // A key that is no answer is ignored on a terminal; a line gets the choices again.
      if (!input.interactive) screen.line(style.cyan(menu));
    }
  }

  /** Asks about each hunk; all accepted is "once", none is "deny", some is a PartialApproval. */
  async #reviewHunks(path: string, oldText: string | null, hunks: Hunk[], signal: AbortSignal): Promise<Choice | PartialApproval> {
    const { screen, style, input } = this.options;
    const accepted: boolean[] = [];
    for (let k = 0; k < hunks.length; k++) {
      screen.line(style.bold(`  Hunk ${k + 1} of ${hunks.length}:`));
      screen.line(indent(colourDiff(capLines(visible(hunkLines(oldText, hunks[k] as Hunk).join("\n"))), style), "    "));
      let decided: boolean | "rest" | undefined;
      screen.line(style.cyan(`    [y] keep this hunk   [n] leave it out   [a] keep it and all the rest   [d] leave out this one and all the rest${input.interactive ? "" : "  (then Enter)"}`));
      while (decided === undefined) {
        const answer = await input.readAnswer(signal);
        if (answer === undefined || signal.aborted) {
          screen.line(style.red(signal.aborted ? "  → Denied (stopped)." : "  → Denied (no answer)."));
          return "deny";
        }
        if (answer === "y" || answer === "yes") decided = true;
        else if (answer === "n" || answer === "no") decided = false;
        else if (answer === "a") {
          while (accepted.length < hunks.length) accepted.push(true);
          decided = "rest";
        } else if (answer === "d") {
          while (accepted.length < hunks.length) accepted.push(false);
          decided = "rest";
        }
      }
      if (decided === "rest") break;
      accepted.push(decided);
    }
    const kept = accepted.filter(Boolean).length;
    if (kept === hunks.length) {
      screen.line(style.green("  → Allowed once (every hunk)."));
      return "once";
    }
    if (kept === 0) {
      screen.line(style.red("  → Denied (no hunk kept)."));
      return "deny";
    }
    screen.line(style.green(`  → Allowed once: ${kept} of ${hunks.length} hunks (the others are left out).`));
    return {
      change: { path, oldText, newText: applyHunks(oldText, hunks, accepted) },
      note: rejectedNote(path, oldText, hunks, accepted),
    };
  }
}
