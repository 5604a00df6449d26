// How the terminal words a permission question: its header and its preview. ACP words its own
// (src/acp/question.ts); both put the same HIDDEN_WARNING (src/cli/approver.ts) first.
import type { ApprovalRequest } from "../../permission/types.ts";
import { oneLine, visible } from "../../text/visible.ts";
import { HIDDEN_WARNING } from "../approver.ts";

/** The question's plain header: what is asked, about what. */
export function headerText(request: ApprovalRequest): string {
  const title = oneLine(request.title);
  return request.question ? `${oneLine(request.question)}\n${title}` : `Allow ${title}?`;
}

/** The preview as shown: hidden characters visible, the warning first when there were any. */
export function questionPreview(request: ApprovalRequest): string {
  const preview = visible(request.preview);
  return request.hidden ? `${HIDDEN_WARNING}\n${preview}` : preview;
}
