// A turn's undo point: opened as the turn begins (a snapshot, so /undo can restore what the turn
// changes) and closed when the turn ends. The turn does not wait for the snapshot: the model is
// asked meanwhile, and what could change a file waits for it instead (a tool's write through
// beforeWrite, a command through commandsAfterSnapshot). The undo store is optional and may
// fail; a failure is a warning, never the end of the turn.
import type { EventSink } from "../core-types/events.ts";
import { messageOf } from "../errors/caught.ts";
import type { Executor } from "../sandbox/types.ts";
import { abortable } from "./abortable.ts";
import type { UndoStore } from "./services.ts";

/** Starts the turn's undo point; what the store has to say is said once the snapshot is taken. */
export function beginUndoTurn(undo: UndoStore, signal: AbortSignal, warn: (text: string) => void): void {
  undo.beginTurn().then(
    () => {
      // Undo switched off is said as soon as it is known (endUndoTurn says what is left).
      if (!signal.aborted) for (const text of undo.takeNotices?.() ?? []) warn(text);
    },
    (error: unknown) => {
      if (!signal.aborted)
        warn(`The undo snapshot of this turn failed (${messageOf(error)}); /undo may not restore it.`);
    },
  );
}

/**
 * The executor of a turn's tools: each command starts once the turn's snapshot is taken (a
 * command may write any file, and the snapshot must hold it as it was).
 */
export function commandsAfterSnapshot(executor: Executor, undo: UndoStore | undefined): Executor {
  const before = undo?.beforeCommand?.bind(undo);
  if (!before) return executor;
  // A stopped call stops waiting: the executor then answers it as cancelled at once.
  const wait = (lasting: boolean, signal: AbortSignal | undefined) => {
    const taken = before(lasting);
    return (signal ? abortable(taken, signal) : taken).catch(() => undefined);
  };
  return {
    get sandbox() {
      return executor.sandbox;
    },
    run: async (request) => {
      await wait(false, request.signal);
      return executor.run(request);
    },
    start: async (request) => {
      await wait(true, request.signal);
      return executor.start(request);
    },
    shutdown: () => executor.shutdown(),
  };
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
