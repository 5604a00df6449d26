// Drives the real chat (and `garuda run`) from source the way a user does: in a pseudo-terminal
// (Bun.Terminal) or over pipes, in a temporary project folder with a temporary HOME, against the
// mock Anthropic server (real SSE).
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { QUESTION_GRACE_MS } from "../../src/cli/chat/terminalInput.ts";
import type { MockAnthropic } from "./mockAnthropic.ts";
import { ENTRY, plain } from "./setupHarness.ts";
import { makeTempDir } from "./tempDir.ts";

export { ENTRY, plain };
export { alive, startedBelow } from "./processes.ts";

export const KEYS = {
  enter: "\r",
  ctrlC: "\x03",
  ctrlD: "\x04",
  shiftTab: "\x1b[Z",
} as const;

/** A project folder and a HOME of its own, removed at the end of the `using` block. */
export function workspace(): { root: string; home: string; [Symbol.dispose](): void } {
  const base = makeTempDir("garuda-chat-");
  const root = join(base, "project");
  const home = join(base, "home");
  mkdirSync(root);
  mkdirSync(home);
  return { root, home, [Symbol.dispose]: () => rmSync(base, { recursive: true, force: true }) };
}

export function chatEnv(mock: MockAnthropic, home: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    TERM: "xterm-256color",
    ANTHROPIC_BASE_URL: mock.url,
    ANTHROPIC_API_KEY: "sk-ant-chat-test",
    GARUDA_MODEL: "claude-sonnet-5",
    ...extra,
  };
}

/** One run of the CLI in a pseudo-terminal. */
export class ChatPty {
  raw = "";
  #from = 0;
  /** When the last waitFor found its text (Date.now()). */
  #foundAt = 0;
  readonly #terminal: Bun.Terminal;
  readonly process: Bun.Subprocess;

  constructor(args: string[], options: { cwd: string; env: Record<string, string>; cols?: number; rows?: number }) {
    const decoder = new TextDecoder();
    this.#terminal = new Bun.Terminal({
      cols: options.cols ?? 120,
      rows: options.rows ?? 40,
      data: (_terminal, data) => {
        this.raw += decoder.decode(data, { stream: true });
      },
    });
    this.process = Bun.spawn([process.execPath, ENTRY, ...args], {
      terminal: this.#terminal,
      env: options.env,
      cwd: options.cwd,
    });
  }

  get pid(): number {
    return this.process.pid;
  }

  /** The screen's text so far, without escape sequences. */
  get text(): string {
    return plain(this.raw);
  }

  /** Waits until `pattern` appears after the previous match; returns the text up to and including it. */
  async waitFor(pattern: string | RegExp, timeoutMs = 15_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const rest = this.text.slice(this.#from);
      const index = typeof pattern === "string" ? rest.indexOf(pattern) : rest.search(pattern);
      if (index >= 0) {
        const length = typeof pattern === "string" ? pattern.length : (rest.match(pattern)?.[0].length ?? 0);
        this.#from += index + length;
        this.#foundAt = Date.now();
        return rest.slice(0, index + length);
      }
      if (Date.now() > deadline || this.process.exitCode !== null) {
        await Bun.sleep(50);
        const again = this.text.slice(this.#from);
        if (typeof pattern === "string" ? again.includes(pattern) : pattern.test(again)) continue;
        throw new Error(`"${String(pattern)}" did not appear (exit ${this.process.exitCode}). Screen:\n${this.text}`);
      }
      await Bun.sleep(10);
    }
  }

  /** Waits for the prompt (the chat is ready for input). */
  prompt(timeoutMs?: number): Promise<string> {
    return this.waitFor(/› $/m, timeoutMs);
  }

  send(keys: string): void {
    this.#terminal.write(keys);
  }

  /**
   * The window changes size. Bun.Terminal sets the size but sends no SIGWINCH, as a terminal's kernel would: sent here.
   */
  resize(cols: number, rows: number): void {
    this.#terminal.resize(cols, rows);
    this.process.kill("SIGWINCH");
  }

  /**
   * Answers the question the last waitFor found, once the chat's grace window after it is over:
   * keys sooner than QUESTION_GRACE_MS after a question is drawn are typing for the prompt.
   */
  async answer(keys: string): Promise<void> {
    await this.afterGrace();
    this.send(keys);
  }

  /** Waits until the grace window of the question the last waitFor found is over. */
  async afterGrace(): Promise<void> {
    const wait = this.#foundAt + QUESTION_GRACE_MS + 150 - Date.now();
    if (wait > 0) await Bun.sleep(wait);
  }

  /** Types a line and presses Enter. */
  type(text: string): void {
    this.send(text);
    this.send(KEYS.enter);
  }

  async exit(timeoutMs = 15_000): Promise<number> {
    const timer = setTimeout(() => this.process.kill("SIGKILL"), timeoutMs);
    const code = await this.process.exited;
    clearTimeout(timer);
    await Bun.sleep(30);
    this.#terminal.close();
    return code;
  }
}

/** Runs the CLI (or another `entry` script) over pipes; stdin is fed all at once (or closed). */
export async function runPipedIn(
  args: string[],
  options: { cwd: string; env: Record<string, string>; stdin?: string; entry?: string },
) {
  const child = Bun.spawn([process.execPath, options.entry ?? ENTRY, ...args], {
    env: options.env,
    cwd: options.cwd,
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

/** The text of the last tool_result the model received in request `index`. */
export function lastToolResult(mock: MockAnthropic, index: number): string {
  const messages = mock.requests[index]?.body?.messages as
    | Array<{ role: string; content: Array<{ type: string; content?: unknown }> }>
    | undefined;
  const last = messages?.at(-1);
  const result = last?.content.find((block) => block.type === "tool_result");
  const content = result?.content;
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((part: { text?: string }) => part.text ?? "").join("");
  return "";
}
