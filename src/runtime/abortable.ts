// Cancel without waiting: a turn ends the moment its signal aborts, whether or not the model
// stream or a tool has noticed yet (they get the same signal and stop on their own).
import { abortError } from "../model/abort.ts";
import { untilAborted } from "../untilAborted.ts";

/** Resolves or rejects like `promise`, or rejects with an AbortError as soon as `signal` aborts. */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return untilAborted(promise, signal, () => {
    throw abortError();
  });
}
