// A turn's undo point: opened before the model works (a snapshot, so /undo can restore what the
// turn changes) and closed when the turn ends. The undo store is optional and may fail; a
// failure is a warning, never the end of the turn.
import type { EventSink } from "../core-types/events.ts";
import { messageOf } from "../errors/caught.ts";
import { abortable } from "./abortable.ts";
import type { UndoStore } from "./services.ts";

/** Opens the turn's undo point; "cancelled" when the turn was cancelled while the snapshot ran. */
export async function beginUndoTurn(
  undo: UndoStore,
  signal: AbortSignal,
  warn: (text: string) => void,
): Promise<"cancelled" | undefined> {
  try {
    await abortable(undo.beginTurn(), signal);
  } catch (error) {
    if (signal.aborted) return "cancelled";
    warn(`The undo snapshot of this turn failed (${messageOf(error)}); /undo may not restore it.`);
  }
  // Undo switched off before the turn is said before the model works, not after.
  for (const text of undo.takeNotices?.() ?? []) warn(text);
  return undefined;
}

/** Closes the undo point of the turn and shows what the undo store had to say. */
export async function endUndoTurn(undo: UndoStore | undefined, emit: EventSink): Promise<void> {
  if (!undo) return;
  try {
    await undo.endTurn?.();
  } catch {
    // The store reports its own failures through takeNotices.
  }
  for (const text of undo.takeNotices?.() ?? []) emit({ type: "notice", level: "warning", text });
}
