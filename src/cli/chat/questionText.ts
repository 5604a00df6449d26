// How the terminal shows a permission question's preview. Its header and the hidden-character
// warning are the shared wording of src/cli/approver.ts; ACP words the rest its own way
// (src/acp/question.ts).
import type { ApprovalRequest } from "../../permission/types.ts";
import { visible } from "../../text/visible.ts";
import { HIDDEN_WARNING } from "../approver.ts";

/** The preview as shown: hidden characters visible, the warning first when there were any. */
export function questionPreview(request: ApprovalRequest): string {
  const preview = visible(request.preview);
  return request.hidden ? `${HIDDEN_WARNING}\n${preview}` : preview;
}
