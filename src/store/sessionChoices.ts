// The model and effort a recorded session ended with, read back from its records: the start or
// resume record names the model, a `model` record is a switch (and resets the effort to the new
// model's default), an `effort` record is a level for the model in use. A resumed session goes on
// with them; records before the first response count like the rest.
import type { SessionRecord } from "./sessionRecords.ts";

export interface SessionChoices {
  /** The spec of the model in use at the end. */
  model?: string;
  /** Its effort level, when one was chosen. */
  effort?: string;
}

export function sessionChoices(records: readonly SessionRecord[]): SessionChoices {
  let model: string | undefined;
  let effort: string | undefined;
  for (const record of records) {
    if (record.type === "start" || record.type === "resume" || record.type === "model") {
      if (record.model !== model) effort = undefined;
      model = record.model;
    } else if (record.type === "effort") effort = record.effort;
  }
  return { ...(model !== undefined && { model }), ...(effort !== undefined && { effort }) };
}

/** The spec of the model that served each record, in order (for the cost of a resumed session). */
export function modelAt(records: readonly SessionRecord[]): Array<string | undefined> {
  let model: string | undefined;
  return records.map((record) => {
    if (record.type === "start" || record.type === "resume" || record.type === "model") model = record.model;
    return model;
  });
}
