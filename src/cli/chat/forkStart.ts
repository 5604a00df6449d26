// /fork's start: the session's file copied to a new session (store/sessionFork.ts) and a runtime
// started on the copy; a copy whose runtime did not start is removed again. Apart from the Chat,
// which only swaps the runtime it goes on with; the store's modules load when a fork is asked for.
import type { ClaimedSession } from "../../store/sessionCatalog.ts";
import type { Runtime } from "../../runtime/runtime.ts";
import type { Started } from "./startRuntime.ts";

export type ForkStart = { started: Started; parent: string; fork: string } | { refused: string };

/** Forks `old`'s session and starts a runtime on the fork with `start`. */
export async function startInFork(
  old: Runtime,
  start: (forked: ClaimedSession) => Promise<Started>,
): Promise<ForkStart> {
  const session = old.session;
  if (!session?.file) return { refused: "Nothing to fork yet: this conversation has no messages." };
  const [{ forkSession }, { removeSession }, { readSession }] = await Promise.all([
    import("../../store/sessionFork.ts"),
    import("../../store/sessionCatalog.ts"),
    import("../../store/sessionFile.ts"),
  ]);
  const forked = forkSession({ parentFile: session.file, parentId: session.id, data: readSession(session.file) });
  let started: Started;
  try {
    started = await start(forked);
  } catch (error) {
    removeSession(forked);
    forked.lock.release();
    throw error;
  }
  return { started, parent: session.id, fork: forked.id };
}
