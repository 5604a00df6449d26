// The terminal's first-run questions (project settings that loosen safety, project hooks) in the
// editor. session/new cannot ask: no prompt runs, so no editor waits for a question. prepare()
// gets `answer` as its projectTrust: a question not yet asked is kept and answered no, so the
// session starts with the safe defaults. At the first prompt each kept question goes to the
// editor through the approver (its own garuda-question-<n> entry, showing exactly what it
// loosens); after a yes the session's runtime is prepared again, and prepareRuntime pins the yes
// in ~/.garuda/trust.json as it does for the terminal. A question is keyed by its whole text, so
// a file that changed between the two prepares is a new question, never a stale yes.
import type { ProjectTrustQuestion } from "../compose/prepare.ts";
import type { ApprovalRequest, Approver } from "../permission/types.ts";
import { hasHidden } from "../text/visible.ts";

const TEXTS: Record<
  ProjectTrustQuestion["kind"],
  { title: string; question: string; yes: string; no: string; denied: string }
> = {
  settings: {
    title: "Trust this project's settings?",
    question:
      "This project's settings loosen Garuda's safety. Trust them? A yes is " +
      "remembered for this folder (in ~/.garuda/trust.json) until these parts of the " +
      "file change; the terminal uses it too.",
    yes: "Yes, use them (remembered)",
    no: "No, keep the safe defaults",
    denied: "The project's settings that loosen safety are not used in this session: Garuda's safe defaults apply.",
  },
  hooks: {
    title: "Run this project's hooks?",
    question:
      "This project has hooks: commands that run around Garuda's tool calls. Let them " +
      "run? A yes is remembered for this folder (in ~/.garuda/trust.json) until the " +
      "file changes; the terminal uses it too.",
    yes: "Yes, run them (remembered)",
    no: "No, do not run them",
    denied: "The project's hooks do not run in this session.",
  },
};

const keyOf = (question: ProjectTrustQuestion) => `${question.kind}\n${question.file}\n${question.text}`;

/** The question as the editor sees it: the file's loosening parts as the preview. */
function projectTrustRequest(question: ProjectTrustQuestion): ApprovalRequest {
  const texts = TEXTS[question.kind];
  return {
    tool: `project_${question.kind}`,
    title: texts.title,
    question: texts.question,
    preview: question.text,
    // "session" is the editor's allow_always: the yes outlives the session (it is pinned).
    choices: ["session", "deny"],
    labels: { once: texts.yes, session: texts.yes, deny: texts.no },
    hidden: hasHidden(question.text),
  };
}

export class EditorProjectTrust {
  readonly #answers = new Map<string, boolean>();
  #pending: ProjectTrustQuestion[] = [];

  /** prepare()'s projectTrust: an answer given at a prompt, else no for now (the question waits). */
  readonly answer = (question: ProjectTrustQuestion): Promise<boolean> => {
    const known = this.#answers.get(keyOf(question));
    if (known !== undefined) return Promise.resolve(known);
    if (!this.#pending.some((waiting) => keyOf(waiting) === keyOf(question))) this.#pending.push(question);
    return Promise.resolve(false);
  };

  get waiting(): boolean {
    return this.#pending.length > 0;
  }

  /**
   * Asks every waiting question. Returns the lines to say after a no, and whether any answer was
   * yes (the runtime must then be prepared again to use it).
   */
  async ask(approver: Approver, signal: AbortSignal): Promise<{ yes: boolean; lines: string[] }> {
    const questions = this.#pending.splice(0);
    let yes = false;
    const lines: string[] = [];
    for (const question of questions) {
      const allowed = (await approver.ask(projectTrustRequest(question), signal)) !== "deny";
      // A stopped prompt is no answer: the question waits for the next one.
      if (signal.aborted) {
        this.#pending.push(question);
        continue;
      }
      this.#answers.set(keyOf(question), allowed);
      if (allowed) yes = true;
      else lines.push(TEXTS[question.kind].denied);
    }
    return { yes, lines };
  }
}
