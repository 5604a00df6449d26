// The one race of a piece of work against an AbortSignal: the turn's (runtime/abortable.ts), the
// permission engine's question, the editor's permission request (acp/approver.ts), an editor
// buffer read and process_manager's start wait. A leaf that imports nothing, so any layer may use it.

/**
 * Settles like `work`, or with what `whenAborted` returns (or throws) the moment `signal` aborts,
 * whichever comes first. The abort listener goes when `work` settles, so a long-lived signal (a
 * session's) does not gather one listener per call. Once aborted, a later rejection of `work` is
 * handled here, never reported as unhandled.
 */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal, whenAborted: () => T): Promise<T> {
  if (signal.aborted) {
    work.catch(() => {});
    return new Promise<T>((resolve) => resolve(whenAborted()));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      try {
        resolve(whenAborted());
      } catch (error) {
        reject(error);
      }
    };
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
