// Where a guard's inotify events wait until its queue of steps (guard.ts) gets to them: taken all
// at once by at most one queued step, so a command that changes the tree faster than the guard
// follows adds no steps, only events. Bounded like the kernel's own queue: past it, events are
// only counted towards a storm (storm.ts) and the step looks at the whole tree again instead,
// once, however many were dropped, as after the kernel's overflow.
import type { InotifyEvent } from "../inotify.ts";

/** Most events waiting (the kernel's default max_queued_events). */
export const MAX_INBOX = 16_384;

export interface InboxOptions {
  /** Queues a step after every step queued before (the guard's serial queue). */
  queue: (step: () => Promise<void>) => Promise<void>;
  /** The step: the events taken, and whether some were dropped. */
  take: (events: InotifyEvent[], dropped: boolean) => Promise<void>;
  /** Counts events there was no room for. */
  tally: (events: InotifyEvent[]) => void;
  max?: number;
}

/** Receives events; resolves once the step that takes them is done. */
export type Inbox = (events: InotifyEvent[]) => Promise<void>;

export function createInbox(options: InboxOptions): Inbox {
  const max = options.max ?? MAX_INBOX;
  let waiting: InotifyEvent[] = [];
  let dropped = false;
  let queued: Promise<void> | undefined;

  function take(): Promise<void> {
    queued = undefined; // events that come from now on wait for the next step
    const events = waiting;
    const some = dropped;
    waiting = [];
    dropped = false;
    return options.take(events, some);
  }

  return (events) => {
    if (waiting.length >= max) {
      dropped = true;
      options.tally(events);
    } else for (const event of events) waiting.push(event);
    queued ??= options.queue(take);
    return queued;
  };
}
