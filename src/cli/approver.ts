// The question both front ends show: the terminal prints it, ACP sends it as the tool call's
// title and content. Shared so a user sees the same words and the same warning everywhere.
import type { ApprovalRequest } from "../permission/types.ts";
import { oneLine, visible } from "../text/visible.ts";

export const HIDDEN_WARNING =
  "Warning: this request contains hidden or control characters (shown as ⟨U+…⟩). It may not do what it appears to do.";

/** The question's plain header: what is asked, about what. */
export function headerText(request: ApprovalRequest): string {
  const title = oneLine(request.title);
  return request.question ? `${oneLine(request.question)}\n${title}` : `Allow ${title}?`;
}

/** The preview as shown: hidden characters visible, the warning first when there were any. */
export function previewText(request: ApprovalRequest): string {
  const preview = visible(request.preview);
  return request.hidden ? `${HIDDEN_WARNING}\n${preview}` : preview;
}
