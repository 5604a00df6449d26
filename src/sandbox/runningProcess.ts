// What the executor's start() hands back for a long-running process (RunningProcess: process_manager,
// MCP stdio servers): its job seen from outside, with the output kept so far, its end, a stop, and
// its stdin as a web WritableStream over the job's pipe (each chunk flushed as it is written, so
// a protocol spoken over stdio is not held back).
import type { Job } from "./job.ts";
import type { TailBuffer } from "./output.ts";
import type { ExecResult, RunningProcess } from "./types.ts";

export function runningProcess(
  id: string,
  command: string,
  job: Job,
  ring: TailBuffer,
  exited: Promise<ExecResult>,
): RunningProcess {
  const sink = job.stdin;
  return {
    id,
    pid: job.pid,
    command,
    output: () => ring.text(),
    exited,
    async stop() {
      await job.terminate("stop");
      return exited;
    },
    stdin: sink
      ? new WritableStream<Uint8Array>({
          async write(chunk) {
            sink.write(chunk);
            await sink.flush();
          },
          async close() {
            await sink.end();
          },
        })
      : undefined,
    stdout: job.stdout,
  };
}
