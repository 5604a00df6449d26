// Garuda's notices the editor's way: a client that advertises `clientCapabilities.session.notices`
// (stable in ACP's schema since SDK 2.4.0) gets each as an ACP `notice` update — a severity and a
// plain-text title — instead of a "Garuda: …" line in the answer. Other clients get the lines.
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import { visible } from "../text/visible.ts";

export type NoticeLevel = "info" | "warning" | "error";

/** Whether the client takes notice updates. */
export function wantsNotices(capabilities: { session?: { notices?: unknown } | null } | null | undefined): boolean {
  const notices = capabilities?.session?.notices;
  return notices !== undefined && notices !== null;
}

/** A notice update; the title is the whole line (a sentence that stands alone), its hidden characters made visible. */
export function noticeUpdate(text: string, level: NoticeLevel): SessionUpdate {
  const line = visible(text).trim();
  const title = line.charAt(0).toUpperCase() + line.slice(1);
  return { sessionUpdate: "notice", severity: level, title: title === "" ? "Garuda" : title };
}
