// What stops `garuda run` from outside: a signal (Ctrl-C, a CI job's SIGTERM, a closed terminal's
// SIGHUP) or a reader that closed stdout (`garuda run … | head -1`). Each aborts the turn, which
// then ends as in the chat (the command's process group is killed, the calls it ended are
// named), and the exit code says which one it was. A second signal does not wait for that.
import { EXIT } from "./exitCodes.ts";

const SIGNAL_EXIT = { SIGINT: EXIT.interrupted, SIGTERM: EXIT.terminated, SIGHUP: EXIT.hungUp } as const;

export type StopSignal = keyof typeof SIGNAL_EXIT;

export interface StopOptions {
  /** A second signal: end now, with the first stop's code (closes the runtime first). */
  exitNow: (code: number) => void;
}

/** A stream that emits "error" (process.stdout). */
interface ErrorSource {
  on(event: "error", listener: (error: Error) => void): unknown;
}

export class RunStop {
  readonly #controller = new AbortController();
  #code: number | undefined;
  #signals = 0;
  #stdoutClosed = false;

  constructor(private readonly options: StopOptions) {}

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** The exit code of the first stop; undefined while nothing stopped the run. */
  get code(): number | undefined {
    return this.#code;
  }

  /** Stdout's reader went away: nothing more is written there (and stderr stays quiet too). */
  get stdoutClosed(): boolean {
    return this.#stdoutClosed;
  }

  onSignal(signal: StopSignal): void {
    this.#stop(SIGNAL_EXIT[signal]);
    if (++this.#signals > 1) this.options.exitNow(this.#code ?? SIGNAL_EXIT[signal]);
  }

  /** A write to stdout failed (EPIPE when the reader closed it): the run's output has nowhere to go. */
  onStdoutError(): void {
    this.#stdoutClosed = true;
    this.#stop(EXIT.closed);
  }

  /**
   * Hears write errors, from the start and to the end: an unheard "error" event crashes the
   * process with a stack trace, and the last flush comes after the run. A closed stderr only
   * loses the activity lines; a closed stdout stops the run.
   */
  watchOutput(stdout: ErrorSource, stderr: ErrorSource): void {
    stdout.on("error", () => this.onStdoutError());
    stderr.on("error", () => {});
  }

  /** Listens for the signals while the task runs; returns what removes the handlers. */
  listen(): () => void {
    const handlers = Object.keys(SIGNAL_EXIT).map(
      (signal) => [signal, () => this.onSignal(signal as StopSignal)] as const,
    );
    for (const [signal, handler] of handlers) process.on(signal, handler);
    return () => {
      for (const [signal, handler] of handlers) process.off(signal, handler);
    };
  }

  #stop(code: number): void {
    this.#code ??= code;
    this.#controller.abort();
  }
}
