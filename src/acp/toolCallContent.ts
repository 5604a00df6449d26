// The pieces of a tool call's content as the editor is sent them: a diff (or none when too large),
// a text cut with a marker, and the id the editor knows the call by. Used by the event mapper,
// the approver and the question.
import type { Diff, ToolCallContent } from "@agentclientprotocol/sdk";
import { createHash } from "node:crypto";
import type { FileChange } from "../core-types/fileChange.ts";
import { cutText, jsonBytes } from "../text/cut.ts";

/**
 * Old and new text together above this many bytes (as they are sent, JSON-escaped): no ACP
 * diff, the text preview only. A cut diff would show a file that is not there.
 */
export const MAX_DIFF_BYTES = 1024 * 1024;
/** The longest text of a call's content (a result, progress, a question's preview); the rest is cut with a marker. */
export const MAX_CONTENT_CHARS = 200_000;
/** An ACP diff of a change, or undefined when it is too large to send. */
export function diffContent(change: FileChange): ToolCallContent | undefined {
  const raw = Buffer.byteLength(change.oldText ?? "") + Buffer.byteLength(change.newText);
  // Control characters take six bytes each in JSON: measure what is sent once it may matter.
  if (
    raw > MAX_DIFF_BYTES ||
    (raw * 6 > MAX_DIFF_BYTES && jsonBytes(change.oldText) + jsonBytes(change.newText) > MAX_DIFF_BYTES)
  )
    return undefined;
  const diff: Diff = { path: change.path, oldText: change.oldText, newText: change.newText };
  return { type: "diff", ...diff };
}

/** Content text, cut to MAX_CONTENT_CHARS with a marker. The caller makes it visible. */
export function textContent(text: string): ToolCallContent {
  return { type: "content", content: { type: "text", text: cutText(text, MAX_CONTENT_CHARS) } };
}

/**
 * The id the editor knows a call by: the provider's own when it is a plain one, else a stand-in
 * derived from it (a server may send any string, and the editor may show or log it).
 */
export function editorCallId(id: string): string {
  return /^[\w.:-]{1,200}$/.test(id) ? id : `call-${createHash("sha256").update(id).digest("hex").slice(0, 24)}`;
}
