// The editor's unsaved buffers for the core (tools/editorBuffers.ts), over fs/read_text_file.
// Offered only when the client said `fs.readTextFile: true` in initialize. The core asks only
// after its own path and permission checks, bounds the wait and falls back to the disk; here a
// request that fails or is cancelled is simply no answer. fs/write_text_file is never called.
import * as acp from "@agentclientprotocol/sdk";
import type { EditorBuffers } from "../tools/editorBuffers.ts";

export function acpBuffers(sessionId: string, client: acp.AgentContext): EditorBuffers {
  return {
    async read(path, signal) {
      try {
        const answer = await client.request(
          acp.methods.client.fs.readTextFile,
          { sessionId, path },
          { cancellationSignal: signal, stopWaitingOnCancel: true },
        );
        return typeof answer?.content === "string" ? answer.content : undefined;
      } catch {
        return undefined;
      }
    },
  };
}
