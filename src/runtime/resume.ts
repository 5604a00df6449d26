// Continuing a session. Its file is claimed (locked) before it is read, so what the runtime
// continues from is what the file holds; then what the records say is replayed into the new
// runtime: each response's usage at the price of the model that served it (a session may switch
// models), the model and effort last chosen, and the mode of the last turn.
import { type ClaimedSession, claimSession } from "../store/sessionCatalog.ts";
import { modelAt } from "../store/sessionChoices.ts";
import type { UsageMeter } from "./meter.ts";
import type { Notice } from "./services.ts";
import type { SessionControls } from "./sessionControls.ts";
import { type ResumedState, resumedState } from "./titleAndNotices.ts";

/**
 * A session to continue, locked. `damageShown`: the front end has told the user which damaged
 * lines were skipped.
 */
export type ResumeSource = ClaimedSession & { damageShown?: boolean };

/**
 * The session `resume` names, locked: a file is claimed here (SessionBusyError when another
 * Garuda holds it); a session the front end already claimed is taken as it is.
 */
export function claimResume(resume: string | ResumeSource | undefined): ResumeSource | undefined {
  return typeof resume === "string" ? claimSession(resume) : resume;
}

/**
 * Replays a resumed session's records into the meter and the controls. A damage notice the
 * front end has not shown goes to `notices`. Returns what the file says about the session.
 */
export function replayResumed(
  resumed: ResumeSource,
  to: { meter: UsageMeter; controls: SessionControls; notices: Notice[] },
): ResumedState {
  const state = resumedState(resumed.data);
  if (state.damage && !resumed.damageShown) to.notices.push({ level: "warning", text: state.damage });
  const records = resumed.data.records;
  const served = modelAt(records);
  const priceOf = to.controls.priceLookup();
  records.forEach((record, index) => {
    const price = priceOf(served[index]);
    if (record.type === "assistant") to.meter.spend(record.usage, price);
    if (record.type === "compaction" && record.usage) to.meter.spend(record.usage, price);
  });
  to.controls.restore(records);
  return state;
}
