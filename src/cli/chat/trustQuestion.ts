// The first run in a folder whose .garuda/settings.json loosens safety: say exactly what it
// loosens (describeLoosening) and ask. Yes is pinned in ~/.garuda/trust.json (by prepareRuntime,
// with approveProjectSettings), so the next chat and `garuda acp` use the settings without
// asking; a change to those parts asks again. No keeps Garuda's safe defaults for this run.
import { visible } from "../../text/visible.ts";
import { indent } from "./diffView.ts";
import type { ChatInput } from "./input.ts";
import type { Screen } from "./screen.ts";
import type { Style } from "./style.ts";

export async function askProjectTrust(question: { file: string; text: string }, ui: { input: ChatInput; screen: Screen; style: Style }): Promise<boolean> {
  const { input, screen, style } = ui;
  screen.line(style.yellow(style.bold("? This project's settings loosen Garuda's safety. Trust them?")));
  screen.line(indent(visible(question.text)));
  screen.line(style.dim("  Yes is remembered for this folder (in ~/.garuda/trust.json) until these parts of the file change; editors use it too."));
  const never = new AbortController().signal;
  for (;;) {
    screen.line(style.cyan(`  [y] Yes, use them   [n] No, keep the safe defaults${input.interactive ? "" : "  (type the letter, then Enter)"}`));
    const answer = await input.readAnswer(never);
    if (answer === undefined || answer === "n" || answer === "no" || answer === "escape") {
      screen.line(style.dim("  → Safe defaults: the loosening parts are ignored in this session."));
      return false;
    }
    if (answer === "y" || answer === "yes") {
      screen.line(style.green("  → Trusted and remembered."));
      return true;
    }
  }
}
