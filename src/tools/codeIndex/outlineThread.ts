// Where a session's outlines are parsed: one worker thread (outlineWorker.ts), started at the first
// parse and ended IDLE_MS after the last. Tree-sitter's wasm runtime, its grammars and their
// compiled code (~40 MB resident once C and C++ are loaded, and the compiler's transient tens of
// MB) then belong to that thread and are given back with it; in the session's thread they stayed
// for the life of the process (web-tree-sitter's runtime is process-wide and is never unloaded),
// and JSC counted its ~65 MB of wasm memory as live heap, letting that much more garbage pile up
// before a full collection (issue 35.4, bench/toolMemory.ts). Starting the thread costs ~30 ms
// (the runtime and a grammar loaded again), once per burst of find_definition and symbols calls.
import type { FromOutlineWorker, ToOutlineWorker } from "./outlineWorker.ts";
import type { LanguageId } from "./parser.ts";
import type { CodeSymbol } from "./symbol.ts";

/** Bun's Worker, which can be ref'd and unref'd (see searchWorker.ts). */
type BunWorker = Worker & { ref(): void; unref(): void };

/** How long an unused thread is kept for the next parse. */
const IDLE_MS = 10_000;

/**
 * Inside a compiled binary modules live under this URL (Bun's $bunfs); scripts/buildTargets.ts builds with --root src.
 */
const COMPILED_ROOT = "file:///$bunfs/root/";

/** The worker's module: beside this file when run from source, at its place under src/ in a compiled binary. */
export function outlineWorkerUrl(here = import.meta.url): string {
  return here.startsWith(COMPILED_ROOT)
    ? `${COMPILED_ROOT}tools/codeIndex/outlineWorker.ts`
    : new URL("./outlineWorker.ts", here).href;
}

interface Waiting {
  resolve: (symbols: CodeSymbol[]) => void;
  reject: (error: Error) => void;
}

export class OutlineThread {
  #worker: BunWorker | undefined;
  #idle: ReturnType<typeof setTimeout> | undefined;
  readonly #waiting = new Map<number, Waiting>();
  #nextId = 0;

  constructor(private readonly idleMs = IDLE_MS) {}

  /** The outline of one file's text, parsed in the thread. */
  outline(text: string, language: LanguageId): Promise<CodeSymbol[]> {
    const worker = this.#take();
    const id = this.#nextId++;
    return new Promise<CodeSymbol[]>((resolve, reject) => {
      this.#waiting.set(id, { resolve, reject });
      worker.postMessage({ id, text, language } satisfies ToOutlineWorker);
    });
  }

  /** Whether a thread is running now (tests). */
  get running(): boolean {
    return this.#worker !== undefined;
  }

  /** Ends the thread now; parses still waiting fail. */
  close(): void {
    clearTimeout(this.#idle);
    this.#idle = undefined;
    this.#worker?.terminate();
    this.#worker = undefined;
    this.#fail("the outline thread was closed");
  }

  #take(): BunWorker {
    clearTimeout(this.#idle);
    this.#idle = undefined;
    if (this.#worker) {
      this.#worker.ref();
      return this.#worker;
    }
    const worker = new Worker(outlineWorkerUrl()) as BunWorker;
    worker.onmessage = (event: MessageEvent<FromOutlineWorker>) => this.#receive(event.data);
    worker.onerror = (event: ErrorEvent) => {
      // A thread that failed is not used again: the next parse starts a fresh one.
      if (this.#worker === worker) this.#worker = undefined;
      worker.terminate();
      this.#fail(event.message || "the outline thread stopped");
    };
    this.#worker = worker;
    return worker;
  }

  #receive(message: FromOutlineWorker): void {
    const waiting = this.#waiting.get(message.id);
    this.#waiting.delete(message.id);
    if ("error" in message) waiting?.reject(new Error(message.error));
    else waiting?.resolve(message.symbols);
    if (this.#waiting.size === 0) this.#rest();
  }

  /** Nothing waiting: the thread may not keep the process alive, and ends after idleMs. */
  #rest(): void {
    const worker = this.#worker;
    if (!worker) return;
    worker.unref();
    this.#idle = setTimeout(() => {
      if (this.#worker === worker) this.close();
    }, this.idleMs);
    this.#idle.unref();
  }

  #fail(why: string): void {
    const waiting = [...this.#waiting.values()];
    this.#waiting.clear();
    for (const { reject } of waiting) reject(new Error(why));
  }
}
