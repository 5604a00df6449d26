// The wording of a permission question that the design keeps in one place
// (spec/acp-design.txt, Files): the plain header and the warning put first when the request holds
// hidden characters. Text only, no logic. The terminal asks with both (cli/chat/approver.ts); ACP
// sends the warning in the question's content (acp/question.ts) and leaves the header to the
// editor, which shows the call's title beside the options itself. The architecture test lets
// src/acp import this file and nothing else of src/cli.
import type { ApprovalRequest } from "../permission/types.ts";
import { oneLine } from "../text/visible.ts";

export const HIDDEN_WARNING =
  "Warning: this request contains hidden or control characters (shown as ⟨U+…⟩). It may not do what it appears to do.";

/** The question's plain header: what is asked, about what. */
export function headerText(request: ApprovalRequest): string {
  const title = oneLine(request.title);
  return request.question ? `${oneLine(request.question)}\n${title}` : `Allow ${title}?`;
}
