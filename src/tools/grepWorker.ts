// The worker thread a search runs in (searchWorker.ts starts it). It gets the search once, then
// batches of real paths, and answers each batch with one outcome per file, in order. A pattern
// that backtracks for seconds, or a file system that stalls, holds up only this thread; the
// session that started it terminates it on cancel or when the search's budget is spent
// (searchBudget.ts: this thread's CPU time, which the session reads from /proc by the thread id
// it is told at the start of each search).
//
// Its own entry point in the compiled binary (scripts/buildTargets.ts WORKER_ENTRIES).
import { readlinkSync } from "node:fs";
import { compilePattern, type FileOutcome, type Matcher, type SearchSpec, searchFile } from "./grepSearch.ts";

export type ToWorker = { type: "start"; spec: SearchSpec } | { type: "files"; id: number; paths: string[] };
export type FromWorker =
  /** `task`: this thread as /proc names it ("<pid>/task/<tid>"), where there is a /proc. */
  | { type: "started"; task: string | undefined }
  /** `bytes`: what the batch read. */
  | { type: "results"; id: number; outcomes: FileOutcome[]; bytes: number }
  | { type: "failed"; message: string };

function threadTask(): string | undefined {
  try {
    return readlinkSync("/proc/thread-self");
  } catch {
    return undefined;
  }
}

declare const self: Worker;

/** One search per worker: the first message sets it up, each later one is a batch of files. */
function serve(): void {
  let search: { spec: SearchSpec; matcher: Matcher; buffer: Uint8Array; secrets: ReadonlySet<string> } | undefined;
  const send = (message: FromWorker) => self.postMessage(message);
  self.onmessage = (event: MessageEvent<ToWorker>) => {
    const message = event.data;
    if (message.type === "start") {
      const matcher = compilePattern(message.spec.pattern, message.spec.ignoreCase);
      if (typeof matcher === "string") return send({ type: "failed", message: matcher });
      search = {
        spec: message.spec,
        matcher,
        buffer: new Uint8Array(message.spec.maxBytes),
        secrets: new Set(message.spec.secretKeys),
      };
      return send({ type: "started", task: threadTask() });
    }
    if (!search) return send({ type: "failed", message: "files arrived before the search" });
    const { spec, matcher, buffer, secrets } = search;
    const work = { bytes: 0 };
    const outcomes = message.paths.map((path) => searchFile(path, matcher, spec, buffer, secrets, work));
    send({ type: "results", id: message.id, outcomes, bytes: work.bytes });
  };
}

serve();
