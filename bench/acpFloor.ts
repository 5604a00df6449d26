// The floor of bench/acp.ts: the least a Bun-compiled ACP agent can do. No dependencies, no SDK,
// no schema checks: it reads NDJSON from stdin the way `garuda acp` does (Bun.stdin.stream()),
// answers initialize and session/new by hand with answers of the same shape as Garuda's, answers
// any other request with "method not found", and exits 0 when stdin closes. Built by the bench
// with buildBinary, so it has exactly the flags of the shipped binary.
import { FLOOR_MODES } from "./acpFloorModes.ts";

interface Message {
  id?: string | number | null;
  method?: string;
  params?: { cwd?: unknown };
}

const encoder = new TextEncoder();

function send(message: unknown): void {
  process.stdout.write(encoder.encode(`${JSON.stringify(message)}\n`));
}

function answer(message: Message): void {
  if (message.id === undefined || message.id === null || typeof message.method !== "string") return;
  const id = message.id;
  if (message.method === "initialize") {
    send({
      jsonrpc: "2.0",
      id,
      result: {
        protocolVersion: 1,
        agentInfo: { name: "acp-floor", title: "ACP floor", version: "0.0.0" },
        agentCapabilities: {
          loadSession: false,
          promptCapabilities: { image: false, audio: false, embeddedContext: true },
          mcpCapabilities: { http: false, sse: false },
        },
        authMethods: [],
      },
    });
    return;
  }
  if (message.method === "session/new") {
    if (typeof message.params?.cwd !== "string") {
      send({ jsonrpc: "2.0", id, error: { code: -32602, message: "Invalid params: cwd" } });
      return;
    }
    send({
      jsonrpc: "2.0",
      id,
      result: {
        sessionId: crypto.randomUUID(),
        modes: FLOOR_MODES,
      },
    });
    return;
  }
  send({ jsonrpc: "2.0", id, error: { code: -32601, message: `Method not found: ${message.method}` } });
}

function handleLine(line: string): void {
  if (line.trim() === "") return;
  let message: Message;
  try {
    message = JSON.parse(line) as Message;
  } catch {
    send({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } });
    return;
  }
  answer(message);
}

// A bytecode build is CommonJS, so no top-level await.
async function main(): Promise<void> {
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of Bun.stdin.stream()) {
    buffer += decoder.decode(chunk, { stream: true });
    let newline = buffer.indexOf("\n");
    while (newline !== -1) {
      handleLine(buffer.slice(0, newline));
      buffer = buffer.slice(newline + 1);
      newline = buffer.indexOf("\n");
    }
  }
  handleLine(buffer + decoder.decode());
  process.exit(0);
}

void main();
