// The first run in a folder whose .garuda/settings.json loosens safety, or whose .garuda/hooks.json
// has hooks: say exactly what it asks for (describeLoosening, describeProjectHooks) and ask. Yes is
// pinned in ~/.garuda/trust.json (by prepareRuntime), so the next chat and `garuda acp` use it
// without asking; a change asks again. No keeps Garuda's safe defaults for this run.
import type { ProjectTrustQuestion } from "../../compose/prepare.ts";
import { visible } from "../../text/visible.ts";
import { indent } from "./diffView.ts";
import type { ChatInput } from "./input.ts";
import type { Screen } from "./screen.ts";
import type { Style } from "./style.ts";

const TEXTS: Record<
  ProjectTrustQuestion["kind"],
  { question: string; remembered: string; choices: string; no: string }
> = {
  settings: {
    question: "? This project's settings loosen Garuda's safety. Trust them?",
    remembered:
      "  Yes is remembered for this folder (in ~/.garuda/trust.json) until these " +
      "parts of the file change; editors use it too.",
    choices: "  [y] Yes, use them   [n] No, keep the safe defaults",
    no: "  → Safe defaults: the loosening parts are ignored in this session.",
  },
  hooks: {
    question: "? This project has hooks: commands that run around Garuda's tool calls. Let them run?",
    remembered:
      "  Yes is remembered for this folder (in ~/.garuda/trust.json) until the file changes; editors use it too.",
    choices: "  [y] Yes, run them   [n] No, do not run them",
    no: "  → The project's hooks do not run in this session.",
  },
};

export async function askProjectTrust(
  question: ProjectTrustQuestion,
  ui: { input: ChatInput; screen: Screen; style: Style },
): Promise<boolean> {
  const { input, screen, style } = ui;
  const texts = TEXTS[question.kind];
  screen.line(style.yellow(style.bold(texts.question)));
  screen.line(indent(visible(question.text)));
  screen.line(style.dim(texts.remembered));
  const never = new AbortController().signal;
  for (;;) {
    screen.line(style.cyan(`${texts.choices}${input.interactive ? "" : "  (type the letter, then Enter)"}`));
    const answer = await input.readAnswer(never);
    if (answer === undefined || answer === "n" || answer === "no" || answer === "escape") {
      screen.line(style.dim(texts.no));
      return false;
    }
    if (answer === "y" || answer === "yes") {
      screen.line(style.green("  → Trusted and remembered."));
      return true;
    }
  }
}
