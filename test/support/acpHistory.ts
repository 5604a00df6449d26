// Helpers of the history tests: the conversation an editor shows, from a list of session/update
// notifications (live-only updates left out, streamed chunks joined), and a second editor on
// the same machine (same home and root) after the first one exited.
import { rmSync } from "node:fs";
import type * as acp from "@agentclientprotocol/sdk";
import { type Harness, type HarnessOptions, setUpHome, startHarness } from "./acpHarness.ts";
import { makeTempDir } from "./tempDir.ts";

/** One machine: a home set up with a model and a key, and a project folder, kept across editors. */
export interface Machine extends Disposable {
  home: string;
  root: string;
  /** An editor on this machine (a new server and client); `await using` shuts it down. */
  editor(options?: Omit<HarnessOptions, "home" | "root">): Harness;
}

export function machine(): Machine {
  const home = makeTempDir("garuda-history-home-");
  const root = makeTempDir("garuda-history-root-");
  setUpHome(home);
  return {
    home,
    root,
    editor: (options = {}) => startHarness({ ...options, home, root }),
    [Symbol.dispose]: () => {
      rmSync(home, { recursive: true, force: true });
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** What an editor keeps of a conversation: every update but live state, with streamed text joined. */
export function conversation(updates: readonly acp.SessionUpdate[]): unknown[] {
  const out: Array<Record<string, unknown>> = [];
  for (const update of updates) {
    switch (update.sessionUpdate) {
      // Live state: a call running or printing, the / menu, the session's time, the context meter.
      case "usage_update":
      case "config_option_update":
      case "current_mode_update":
      case "available_commands_update":
      case "session_info_update":
      case "user_message_chunk":
        continue;
      // The end-of-turn list of changed files (acp/turnChanges.ts) is live only: no session record keeps it.
      case "tool_call":
        if (update.toolCallId.startsWith("turn-changes-")) continue;
        out.push({ ...update });
        continue;
      case "tool_call_update":
        if (update.status === "in_progress" || update.status === "pending") continue;
        out.push({ ...update });
        continue;
      case "agent_message_chunk":
      case "agent_thought_chunk": {
        const text = update.content.type === "text" ? update.content.text : "";
        const last = out.at(-1);
        if (last?.sessionUpdate === update.sessionUpdate) last.text = `${last.text as string}${text}`;
        else out.push({ sessionUpdate: update.sessionUpdate, text });
        continue;
      }
      default:
        out.push({ ...update });
    }
  }
  return out;
}

export const userChunks = (updates: readonly acp.SessionUpdate[]) =>
  updates.flatMap((u) => (u.sessionUpdate === "user_message_chunk" ? [u.content] : []));

/** session/load, with the updates that arrived before its answer. */
export async function load(
  h: Harness,
  sessionId: string,
  cwd = h.root,
): Promise<{ response: acp.LoadSessionResponse; replayed: acp.SessionUpdate[] }> {
  const before = h.updates.length;
  const response = await h.agent.request("session/load", { sessionId, cwd, mcpServers: [] });
  const replayed = h.updates
    .slice(before)
    .filter((n) => n.sessionId === sessionId)
    .map((n) => n.update);
  return { response, replayed };
}

export const rejection = async (promise: Promise<unknown>): Promise<acp.RequestError> => {
  try {
    await promise;
  } catch (error) {
    return error as acp.RequestError;
  }
  throw new Error("expected an error");
};
