// Cancellation helpers shared by the model clients: one error shape for "the caller aborted"
// and a sleep that ends the moment the signal fires.

/** The error every model stream throws when its signal aborts: a DOMException named "AbortError". */
export function abortError(): DOMException {
  return new DOMException("The model request was aborted.", "AbortError");
}

export function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw abortError();
}

/** Waits `ms` milliseconds; rejects with an AbortError as soon as `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(abortError());
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortError());
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
