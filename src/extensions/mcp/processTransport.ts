// The MCP stdio transport over a process the Executor started (raw pipes, in the OS sandbox):
// newline-delimited JSON-RPC on stdin and stdout, at most MAX_MESSAGE_BYTES a message. The
// SDK's own stdio transport spawns its process itself, which only src/sandbox may do, so it is
// never used. Closing the transport stops the process; the process ending closes the transport.
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { asError } from "../../errors/caught.ts";
import type { RunningProcess } from "../../sandbox/types.ts";

const MAX_MESSAGE_BYTES = 4 * 1024 * 1024;
const NEWLINE = 0x0a;

export class ProcessTransport implements Transport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: (<T extends JSONRPCMessage>(message: T) => void) | undefined;

  readonly #process: RunningProcess;
  readonly #maxBytes: number;
  readonly #encoder = new TextEncoder();
  readonly #decoder = new TextDecoder();
  #writer: WritableStreamDefaultWriter<Uint8Array> | undefined;
  #closed = false;

  constructor(process: RunningProcess, maxBytes = MAX_MESSAGE_BYTES) {
    if (!process.stdin || !process.stdout) throw new Error("the process was not started with raw pipes");
    this.#process = process;
    this.#maxBytes = maxBytes;
  }

  async start(): Promise<void> {
    this.#writer = this.#process.stdin?.getWriter();
    void this.#read();
    void this.#process.exited.then(() => this.#end());
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed || !this.#writer) throw new Error("the MCP server's connection is closed");
    await this.#writer.write(this.#encoder.encode(`${JSON.stringify(message)}\n`));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    await this.#process.stop();
    this.#end();
  }

  #end(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#writer?.releaseLock();
    this.onclose?.();
  }

  #line(bytes: Uint8Array): void {
    const text = this.#decoder.decode(bytes).trim();
    if (text === "") return;
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      this.onerror?.(new Error(`the server wrote a line that is not JSON: ${text.slice(0, 200)}`));
      return;
    }
    if (typeof message !== "object" || message === null || (message as { jsonrpc?: unknown }).jsonrpc !== "2.0") {
      this.onerror?.(new Error("the server wrote a message that is not JSON-RPC 2.0"));
      return;
    }
    this.onmessage?.(message as JSONRPCMessage);
  }

  async #read(): Promise<void> {
    const stdout = this.#process.stdout as ReadableStream<Uint8Array>;
    const reader = stdout.getReader();
    let parts: Uint8Array[] = [];
    let size = 0;
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done || this.#closed) break;
        let chunk = value;
        let index = chunk.indexOf(NEWLINE);
        while (index >= 0) {
          const head = chunk.subarray(0, index);
          const line = parts.length === 0 ? head : Buffer.concat([...parts, head]);
          parts = [];
          size = 0;
          this.#line(line);
          chunk = chunk.subarray(index + 1);
          index = chunk.indexOf(NEWLINE);
        }
        if (chunk.length > 0) {
          parts.push(chunk.slice());
          size += chunk.length;
        }
        if (size > this.#maxBytes) {
          this.onerror?.(new Error(`the server sent a message larger than ${this.#maxBytes} bytes`));
          await this.close();
          return;
        }
      }
    } catch (error) {
      if (!this.#closed) this.onerror?.(asError(error));
    } finally {
      reader.releaseLock();
    }
    // stdout ended: the server is gone (or going); make sure the process is too.
    if (!this.#closed) await this.close();
  }
}
