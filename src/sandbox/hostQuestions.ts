// The egress proxy's questions to the user about hosts outside the allowlist (egressProxy.ts):
// one question per host:port at a time, however many connections want that host, and no
// question outlives the connections waiting on it. When the last of them has gone (the command
// ended, curl gave up), the question's signal aborts so the front end takes it down, and an answer
// that still comes back counts as a refusal: nobody is left to use it, and a late "once" must not
// let a later connection through unasked.

export type HostAnswer = "once" | "session" | "deny";

/** What the user is asked: `signal` aborts when no connection waits for the answer any more. */
export type AskHost = (host: string, port: number, signal: AbortSignal) => Promise<HostAnswer>;

export interface HostQuestions {
  /**
   * The user's answer for host:port on behalf of `waiter` (a connection), sharing a question
   * already under way; "withdrawn" when every waiter had gone before it came.
   */
  ask(host: string, port: number, waiter: object): Promise<HostAnswer | "withdrawn">;
  /** `waiter` has gone (ended or closed while it waited): its question is withdrawn once nobody waits. */
  gone(waiter: object): void;
}

/** A question under way about one host:port, and the connections that wait for its answer. */
interface PendingQuestion {
  answer: Promise<HostAnswer>;
  waiting: Set<object>;
  /** Aborted when the last waiting connection has gone. */
  withdraw: AbortController;
}

export function createHostQuestions(askHost: AskHost): HostQuestions {
  const pending = new Map<string, PendingQuestion>();
  /** The question each waiting connection waits on, while it does. */
  const waitingOn = new Map<object, PendingQuestion>();

  return {
    async ask(host, port, waiter) {
      const key = `${host}:${port}`;
      let question = pending.get(key);
      // A withdrawn question may not have come back yet (the front end is taking it down): a
      // connection that comes now was never put to the user, so it gets a question of its own.
      if (!question || question.withdraw.signal.aborted) {
        const withdraw = new AbortController();
        // A failing front end is a refusal, not a proxy error.
        const asking = askHost(host, port, withdraw.signal).catch((): HostAnswer => "deny");
        const fresh: PendingQuestion = {
          answer: asking.finally(() => {
            if (pending.get(key) === fresh) pending.delete(key);
          }),
          waiting: new Set(),
          withdraw,
        };
        question = fresh;
        pending.set(key, fresh);
      }
      question.waiting.add(waiter);
      waitingOn.set(waiter, question);
      try {
        // A withdrawn question is a refusal, whatever comes back later.
        const answer = await question.answer;
        return question.withdraw.signal.aborted ? "withdrawn" : answer;
      } finally {
        question.waiting.delete(waiter);
        waitingOn.delete(waiter);
      }
    },

    gone(waiter) {
      const question = waitingOn.get(waiter);
      if (!question) return;
      question.waiting.delete(waiter);
      waitingOn.delete(waiter);
      if (question.waiting.size === 0) question.withdraw.abort();
    },
  };
}
