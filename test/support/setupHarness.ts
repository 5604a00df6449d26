// Drives `garuda setup` from source the way a user does: in a pseudo-terminal (Bun.Terminal),
// against a loopback mock of Anthropic's GET /v1/models, with a temporary HOME.
import { join } from "node:path";

export const ENTRY = join(import.meta.dir, "../../src/cli/index.ts");

export const KEYS = {
  up: "\x1b[A",
  down: "\x1b[B",
  enter: "\r",
  backspace: "\x7f",
  ctrlC: "\x03",
} as const;

/** Output as a reader sees it: colours and cursor movements removed. */
export function plain(text: string): string {
  return text.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "").replace(/\r/g, "");
}

export function childEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? "", HOME: home, TERM: "xterm-256color", ...extra };
}

/** One run of the CLI in a pseudo-terminal. */
export class PtyRun {
  /** Every byte the program wrote, as text (escape sequences included). */
  raw = "";
  #from = 0;
  readonly #terminal: Bun.Terminal;
  readonly #process: Bun.Subprocess;

  constructor(args: string[], options: { home: string; env?: Record<string, string>; cols?: number; rows?: number }) {
    const decoder = new TextDecoder();
    this.#terminal = new Bun.Terminal({
      cols: options.cols ?? 160,
      rows: options.rows ?? 40,
      data: (_terminal, data) => {
        this.raw += decoder.decode(data, { stream: true });
      },
    });
    this.#process = Bun.spawn([process.execPath, ENTRY, ...args], {
      terminal: this.#terminal,
      env: childEnv(options.home, options.env),
      cwd: options.home,
    });
  }

  /** The screen's text so far, without escape sequences. */
  get text(): string {
    return plain(this.raw);
  }

  /** Waits until `pattern` appears after the previous match; returns the text up to it. */
  async waitFor(pattern: string | RegExp, timeoutMs = 4000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const text = this.text;
      const rest = text.slice(this.#from);
      const index = typeof pattern === "string" ? rest.indexOf(pattern) : rest.search(pattern);
      if (index >= 0) {
        const length = typeof pattern === "string" ? pattern.length : (rest.match(pattern)?.[0].length ?? 0);
        this.#from += index + length;
        return rest.slice(0, index + length);
      }
      if (Date.now() > deadline || this.#process.exitCode !== null) {
        if (this.#process.exitCode !== null) await Bun.sleep(50);
        const again = this.text.slice(this.#from);
        if (typeof pattern === "string" ? again.includes(pattern) : pattern.test(again)) continue;
        throw new Error(`"${String(pattern)}" did not appear (exit ${this.#process.exitCode}). Screen:\n${this.text}`);
      }
      await Bun.sleep(10);
    }
  }

  send(keys: string): void {
    this.#terminal.write(keys);
  }

  /** Waits for the program to end; returns its exit code. */
  async exit(timeoutMs = 4000): Promise<number> {
    const timer = setTimeout(() => this.#process.kill(), timeoutMs);
    const code = await this.#process.exited;
    clearTimeout(timer);
    // Let the last output arrive before the terminal closes.
    await Bun.sleep(30);
    this.#terminal.close();
    return code;
  }
}

export interface MockApi {
  url: string;
  requests: Array<{ method: string; path: string; headers: Record<string, string> }>;
  [Symbol.dispose](): void;
}

/**
 * A loopback stand-in for GET /v1/models: 200 for a key in `goodKeys` (as x-api-key, or as a
 * Bearer token), 401 for any other.
 */
export function mockModelsApi(goodKeys: string[]): MockApi {
  const requests: MockApi["requests"] = [];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(request) {
      const url = new URL(request.url);
      requests.push({ method: request.method, path: url.pathname, headers: Object.fromEntries(request.headers) });
      if (url.pathname !== "/v1/models" || request.method !== "GET") return new Response("not found", { status: 404 });
      const bearer = request.headers.get("authorization")?.replace(/^Bearer /, "");
      const key = request.headers.get("x-api-key") ?? bearer;
      if (key && goodKeys.includes(key))
        return Response.json({ data: [{ id: "claude-sonnet-5", type: "model" }], has_more: false });
      return Response.json(
        { type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } },
        { status: 401 },
      );
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, requests, [Symbol.dispose]: () => server.stop(true) };
}

/** A loopback address where nothing listens: the check fails as it would offline. */
export async function closedPortUrl(): Promise<string> {
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("") });
  const url = `http://127.0.0.1:${server.port}`;
  await server.stop(true);
  return url;
}

/**
 * Runs the CLI without a terminal (pipes), optionally feeding stdin. Asynchronous, so a mock
 * server in this process can answer the check meanwhile.
 */
export async function runPiped(
  args: string[],
  options: { home: string; env?: Record<string, string>; stdin?: string },
) {
  const child = Bun.spawn([process.execPath, ENTRY, ...args], {
    env: childEnv(options.home, options.env),
    cwd: options.home,
    stdin: options.stdin === undefined ? "ignore" : Buffer.from(options.stdin),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  return { code, stdout, stderr };
}

/** A key shaped like Anthropic's (sk-ant-api03-…, over 100 characters) with `tag` in it to search for. */
export function fakeKey(tag: string): string {
  return `sk-ant-api03-${tag.padEnd(8, "x")}${"Q".repeat(80)}${tag.slice(0, 3).padEnd(3, "z")}AA`;
}
