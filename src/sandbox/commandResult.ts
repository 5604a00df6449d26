// What a command's run reports (ExecResult), made in one place for the executor's run() and
// start(): how the job ended, the output kept and, when the resource limiter saw the command run
// into a limit (a refused fork or allocation, limits.ts), that limit said at the end of the output
// with the most the command used at once.
import type { JobEnd } from "./job.ts";
import type { LimitedCommand } from "./limiter.ts";
import type { ExecResult } from "./types.ts";

/** `seen`: the end of what the command printed, where a refused fork or allocation shows (limits.ts). */
export function commandResult(
  end: JobEnd,
  output: string,
  truncated: boolean,
  started: number,
  limited?: LimitedCommand,
  seen = output,
): ExecResult {
  const finished = limited?.finish({ output: seen, exitCode: end.exitCode, signal: end.signal });
  const hit = finished?.hit;
  return {
    exitCode: end.exitCode,
    signal: end.signal,
    output: hit ? `${output}${output.endsWith("\n") || output === "" ? "" : "\n"}${hit.message}\n` : output,
    truncated,
    timedOut: end.endedBy === "timeout",
    killed: end.endedBy !== undefined && end.endedBy !== "timeout",
    durationMs: Math.round(performance.now() - started),
    ...(hit && { limit: hit }),
    ...(finished && Object.keys(finished.peaks).length > 0 && { peak: finished.peaks }),
  };
}

/** A command cancelled before it started: nothing ran, nothing was printed. */
export function cancelledBeforeStart(durationMs: number): ExecResult {
  return {
    exitCode: null,
    signal: null,
    output: "",
    truncated: false,
    timedOut: false,
    killed: true,
    durationMs,
  };
}
