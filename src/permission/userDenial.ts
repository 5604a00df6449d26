// A denial as the user reads it. A deny's reason is written for the model ("Put this step in your
// plan instead; the user switches to build mode …", "Do not retry it …"): it stays the tool's
// result. The user's screen gets a sentence about what happened instead. Refusals by a rule, a
// policy or a protected path name the rule or file, which is what the user needs to see too: they
// keep their reason (undefined here).
import { CANCELLED } from "./engine.ts";
import type { Decision } from "./types.ts";

/** The line the user sees for a denied call, or undefined to show the reason as it is. */
export function userDenial(decision: Extract<Decision, { outcome: "deny" }>): string | undefined {
  switch (decision.by) {
    case "plan":
      return "Refused: plan mode is on, so nothing in the project changes until you switch to build mode.";
    case "user":
      return decision.reason === CANCELLED ? "Cancelled before it was approved." : "Denied by you.";
    case "unattended":
      return "Not run: it needs an approval, and no one can answer in this run.";
    default:
      return undefined;
  }
}
