// A question taken back before anyone answered it (issue 20.1). A leaf: the front ends read it
// before their core loads (ACP's start-up imports only small modules).

/**
 * Why a question was taken back before anyone answered it: its cause ended (the command whose
 * connection asked is gone). Given as the question's AbortSignal reason, so a front end can say
 * "the command ended; not asked" instead of "stopped", and an editor's request is cancelled.
 */
export class QuestionWithdrawn {
  constructor(
    /** What the user reads, e.g. "the command ended; not asked". */
    readonly why: string,
  ) {}
}

/** The withdrawal's sentence when `signal` aborted because the question's cause ended. */
export function withdrawnWhy(signal: AbortSignal): string | undefined {
  return signal.aborted && signal.reason instanceof QuestionWithdrawn ? signal.reason.why : undefined;
}
