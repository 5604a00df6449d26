// The terminal's Approver: the same ApprovalRequest the editor gets over ACP, shown as a
// question — headerText, the note, the warning line, the preview through questionPreview (hidden
// characters visible), the diff coloured, the scope of "Allow for this session" — answered with
// one key: y (once), s (session), n (deny), or t (deny, and a line of the user's words goes to
// the model with it: "deny and say why", for the engine's questions about a call). The preview gets the rows the
// question leaves on the
// screen, so its header and choices stay in view; v shows all of it. A file change with more than
// one hunk can be reviewed hunk by hunk (h): the file then gets only the accepted hunks (U0).
// Questions are asked one at a time; a stopped turn answers deny at once, and says so at once; a
// question whose cause ended (its command's connection closed) is withdrawn with a line saying so,
// and the next question gets the keys. Keys typed as a question appears go to the prompt, not to
// the question (TerminalInput's grace window): each readAnswer is told when its question was drawn.
import { withdrawnWhy } from "../../core-types/withdrawn.ts";
import type { ApprovalRequest, Approver, Choice, PartialApproval, WordedDenial } from "../../permission/types.ts";
import { oneLine, visible } from "../../text/visible.ts";
import { HIDDEN_WARNING } from "../approver.ts";
import { headerText } from "../approver.ts";
import { questionPreview } from "./questionText.ts";
import {
  colourDiff,
  fitLines,
  fitNote,
  indent,
  looksLikeDiff,
  MAX_PLAIN_WIDTH,
  MAX_PREVIEW_LINES,
  wholeDiff,
} from "./diffView.ts";
import { changeHunks, type Hunk, hunkAnswer, hunkLines } from "../../tools/hunks.ts";
import type { ChatInput, QuestionShown } from "./input.ts";
import type { Screen } from "./screen.ts";
import type { Style } from "./style.ts";
import { displayWidth } from "../wrap.ts";

export interface TerminalApproverOptions {
  input: ChatInput;
  screen: Screen;
  style: Style;
  /** Called before a question is shown (the transcript then names the call again in its result). */
  beforeQuestion?: () => void;
}

type Answer = Choice | "hunks" | "view" | "say-why";

const ANSWERS: Readonly<Record<string, Answer>> = {
  y: "once",
  "1": "once",
  s: "session",
  a: "session",
  "2": "session",
  n: "deny",
  "3": "deny",
  escape: "deny",
  h: "hunks",
  v: "view",
  once: "once",
  yes: "once",
  session: "session",
  deny: "deny",
  no: "deny",
  hunks: "hunks",
  t: "say-why",
  tell: "say-why",
};

/**
 * A question whose "session" choice lasts beyond the session (a consent's "Yes, and remember"):
 * s still means "for this session" (which "once" is there), and the lasting yes has its own key, r.
 */
const LASTING_ANSWERS: Readonly<Record<string, Answer>> = {
  ...ANSWERS,
  s: "once",
  a: "once",
  session: "once",
  r: "session",
  remember: "session",
};

/** A preview on the screen: whether some of it is not shown, and how to show all of it. */
interface Preview {
  more: boolean;
  showAll(): void;
}

/** However small the terminal, a preview shows this many lines. */
const MIN_PREVIEW_ROWS = 5;

export class TerminalApprover implements Approver {
  #queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: TerminalApproverOptions) {}

  ask(request: ApprovalRequest, signal: AbortSignal): Promise<Choice> {
    return this.oneAtATime(async () => {
      const answer = await this.#question(request, signal, false, false);
      return typeof answer === "string" ? answer : "once";
    });
  }

  askChange(request: ApprovalRequest, signal: AbortSignal): Promise<Choice | PartialApproval> {
    return this.oneAtATime(async () => {
      const answer = await this.#question(request, signal, true, false);
      return typeof answer === "object" && "deny" in answer ? "deny" : answer;
    });
  }

  /** The engine's question about a call: hunk by hunk for a file change, and [t] to deny and say why. */
  askCall(request: ApprovalRequest, signal: AbortSignal): Promise<Choice | PartialApproval | WordedDenial> {
    return this.oneAtATime(() => this.#question(request, signal, Boolean(request.change), true));
  }

  /**
   * One question at a time: parallel calls (a read outside the project, a consent, the model's own
   * question: TerminalAsker) queue up. Each is asked aside the prompt, should one be being edited (a question outside a
   * turn).
   */
  oneAtATime<T>(ask: () => Promise<T>): Promise<T> {
    const { input } = this.options;
    const asked = () => (input.aside ? input.aside(ask) : ask());
    const next = this.#queue.then(asked, asked);
    this.#queue = next.catch(() => {});
    return next;
  }

  async #question(
    request: ApprovalRequest,
    signal: AbortSignal,
    hunksAllowed: boolean,
    sayWhyAllowed: boolean,
  ): Promise<Choice | PartialApproval | WordedDenial> {
    const { screen, style, input } = this.options;
    if (signal.aborted) return "deny";
    const hunks = hunksAllowed && request.change ? changeHunks(request.change.oldText, request.change.newText) : [];
    const canSplit = hunks.length > 1;
    const canSayWhy = sayWhyAllowed && input.readText !== undefined;
    this.options.beforeQuestion?.();
    const shown = this.#show(request, canSplit ? hunks.length : 0, canSayWhy);
    let drawn = this.#drawn();
    const stopped = this.#sayWhenStopped(signal);
    try {
      for (;;) {
        const answer = await input.readAnswer(signal, drawn);
        if (answer === undefined || signal.aborted) {
          if (!signal.aborted) screen.line(style.red("  → Denied (no answer)."));
          return "deny";
        }
        const choice = (request.remembers ? LASTING_ANSWERS : ANSWERS)[answer];
        if (choice === "view" && shown.preview.more) {
          shown.preview.showAll();
          screen.line(shown.header);
          screen.line(shown.menu);
          drawn = this.#drawn();
          continue;
        }
        if (choice === "hunks" && canSplit && request.change)
          return await this.#reviewHunks(request.change.path, request.change.oldText, hunks, signal);
        if (choice === "say-why" && canSayWhy) return await this.#sayWhy(request, signal);
        if (
          choice !== undefined &&
          choice !== "hunks" &&
          choice !== "view" &&
          choice !== "say-why" &&
          request.choices.includes(choice)
        ) {
          screen.line(
            choice === "deny" ? style.red(`  → ${request.labels.deny}`) : style.green(`  → ${request.labels[choice]}`),
          );
          return choice;
        }
        // A key that is no answer is ignored on a terminal; a line gets the choices again.
        if (!input.interactive) screen.line(shown.menu);
      }
    } finally {
      stopped();
    }
  }

  /** [t]: the user's words, read as a line, go to the model with the denial; no words is a plain deny. */
  async #sayWhy(request: ApprovalRequest, signal: AbortSignal): Promise<"deny" | WordedDenial> {
    const { screen, style, input } = this.options;
    const words = await input.readText?.(style.bold("  Why? (the model reads it) "), signal);
    if (signal.aborted) return "deny";
    const said = words?.trim() ?? "";
    screen.line(style.red(`  → ${request.labels.deny}${said === "" ? "" : ", and the model reads why"}`));
    return said === "" ? "deny" : { deny: said };
  }

  /** A question just drawn: keys typed as it appeared are the prompt's, and one quiet line says so. */
  #drawn(): QuestionShown {
    const { screen, style } = this.options;
    let told = false;
    return {
      at: performance.now(),
      kept: () => {
        if (!told) screen.line(style.dim("  (keys typed as it appeared went to your prompt, not to the question)"));
        told = true;
      },
    };
  }

  /** The question on the screen: header, note, warning, preview, scope, choices. */
  #show(
    request: ApprovalRequest,
    hunkCount: number,
    canSayWhy: boolean,
  ): { header: string; menu: string; preview: Preview } {
    const { screen, style } = this.options;
    screen.status(undefined);
    screen.endLine();
    const header = style.yellow(style.bold(`? ${headerText(request).split("\n").join("\n  ")}`));
    screen.line(header);
    if (request.note) screen.line(style.dim(`  (${oneLine(request.note, 500)})`));
    if (request.hidden) screen.line(style.red(`  ${HIDDEN_WARNING}`));
    const scope =
      request.sessionRules && request.sessionRules.length > 0 && request.choices.includes("session")
        ? style.dim(
            `  “${oneLine(request.labels.session)}” allows: ` +
              `${request.sessionRules.map((rule) => oneLine(rule)).join(", ")}`,
          )
        : undefined;
    const menu = this.#menu(request, hunkCount, canSayWhy);
    // The rows the rest takes: the call's own line above, the header, the note, the warning, the
    // scope, the menu's rows, and the line the cursor waits on.
    const warningRows = request.hidden ? Math.ceil((HIDDEN_WARNING.length + 2) / screen.columns) : 0;
    const around =
      1 +
      header.split("\n").length +
      (request.note ? 1 : 0) +
      warningRows +
      (scope ? 1 : 0) +
      menu.split("\n").length +
      1;
    const text = questionPreview({ ...request, hidden: false, preview: wholeDiff(request.preview, request.change) });
    const preview = this.#preview(text, Boolean(request.change), around, "  ");
    if (scope) screen.line(scope);
    screen.line(menu);
    return { header, menu, preview };
  }

  #menu(request: ApprovalRequest, hunkCount: number, canSayWhy: boolean): string {
    const keys = [`y ${request.labels.once}`];
    if (request.choices.includes("session")) keys.push(`${request.remembers ? "r" : "s"} ${request.labels.session}`);
    keys.push(`n ${request.labels.deny}`);
    if (canSayWhy) keys.push("t Deny and say why");
    if (hunkCount > 1) keys.push(`h Choose hunks (${hunkCount})`);
    const choices = keys.map((key) => `[${key.slice(0, 1)}]${key.slice(1)}`);
    if (!this.options.input.interactive) choices.push("(type the letter, then Enter)");
    return this.#choiceRows(choices, "  ");
  }

  /**
   * Choices side by side, as many to a row as fit the window: a narrow one breaks the menu between
   * choices, never between a key and what it does.
   */
  #choiceRows(choices: string[], indent: string): string {
    const { screen, style } = this.options;
    const width = screen.live ? screen.columns - 1 : Number.POSITIVE_INFINITY;
    const rows: string[] = [];
    for (const choice of choices) {
      const row = rows.at(-1);
      if (row !== undefined && displayWidth(`${indent}${row}   ${choice}`) <= width)
        rows[rows.length - 1] = `${row}   ${choice}`;
      else rows.push(choice);
    }
    return rows.map((row) => `${indent}${style.cyan(row)}`).join("\n");
  }

  /**
   * Shows as much of the preview as fits under the question on this screen, `around` rows being
   * taken by the rest of it. A diff's long lines are cut to the width (a command's are not: all of
   * it must be seen); `showAll` prints the whole of it, for [v].
   */
  #preview(text: string, isChange: boolean, around: number, prefix: string): Preview {
    const { screen, style } = this.options;
    if (text.trim() === "") return { more: false, showAll: () => {} };
    const diff = isChange || looksLikeDiff(text);
    const colour = (lines: string) => (diff ? colourDiff(lines, style) : lines);
    // One column spare: a line that fills the last one makes some terminals wrap early.
    const width = (screen.live ? screen.columns - 1 : MAX_PLAIN_WIDTH) - prefix.length;
    // One row more for the line that says what is not shown.
    const rows = screen.live ? Math.max(MIN_PREVIEW_ROWS, screen.rows - around - 1) : MAX_PREVIEW_LINES;
    const fitted = fitLines(text, rows, width, diff);
    screen.line(indent(colour(fitted.shown.join("\n")), prefix));
    const note = fitNote(fitted, "v");
    if (note) screen.line(style.dim(`${prefix}${note}`));
    return {
      more: note !== undefined,
      showAll: () => screen.line(indent(colour(text), prefix)),
    };
  }

  /**
   * A stop while the question waits says so at once, before the call's own line says cancelled; a
   * question withdrawn because its cause ended says that instead.
   */
  #sayWhenStopped(signal: AbortSignal): () => void {
    const { screen, style } = this.options;
    const say = () => {
      const why = withdrawnWhy(signal);
      screen.line(why ? style.dim(`  → Withdrawn: ${why}.`) : style.red("  → Denied (stopped)."));
    };
    signal.addEventListener("abort", say, { once: true });
    return () => signal.removeEventListener("abort", say);
  }

  /** Asks about each hunk; all accepted is "once", none is "deny", some is a PartialApproval. */
  async #reviewHunks(
    path: string,
    oldText: string | null,
    hunks: Hunk[],
    signal: AbortSignal,
  ): Promise<Choice | PartialApproval> {
    const { screen, style, input } = this.options;
    const accepted: boolean[] = [];
    for (let k = 0; k < hunks.length; k++) {
      screen.line(style.bold(`  Hunk ${k + 1} of ${hunks.length}:`));
      const choices = [
        "[y] keep this hunk",
        "[n] leave it out",
        "[a] keep it and all the rest",
        "[d] leave out this one and all the rest",
      ];
      const menu = this.#choiceRows(input.interactive ? choices : [...choices, "(then Enter)"], "    ");
      // Around it: its "Hunk k of n" line, its menu's rows, and the cursor's line.
      const view = this.#preview(
        visible(hunkLines(oldText, hunks[k] as Hunk).join("\n")),
        true,
        2 + menu.split("\n").length,
        "    ",
      );
      screen.line(menu);
      let drawn = this.#drawn();
      let decided: boolean | "rest" | undefined;
      while (decided === undefined) {
        const answer = await input.readAnswer(signal, drawn);
        // A stop was said at once (#sayWhenStopped).
        if (answer === undefined || signal.aborted) {
          if (!signal.aborted) screen.line(style.red("  → Denied (no answer)."));
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
        } else if (answer === "v" && view.more) {
          view.showAll();
          screen.line(menu);
          drawn = this.#drawn();
        }
      }
      if (decided === "rest") break;
      accepted.push(decided);
    }
    const answer = hunkAnswer(path, oldText, hunks, accepted);
    if (answer === "once") screen.line(style.green("  → Allowed once (every hunk)."));
    else if (answer === "deny") screen.line(style.red("  → Denied (no hunk kept)."));
    else
      screen.line(
        style.green(
          `  → Allowed once: ${answer.hunks.kept.length} of ${hunks.length} hunks (the others are left out).`,
        ),
      );
    return answer;
  }
}
