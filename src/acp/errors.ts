// Errors as the editor is shown them: a session that cannot be set up, a turn that failed.
import * as acp from "@agentclientprotocol/sdk";
import { messageOf } from "../errors/caught.ts";
import { cutText } from "../text/cut.ts";
import { visible } from "../text/visible.ts";

/** An error's message as the editor shows it: visible, and not a page long. */
export const shownError = (error: unknown) => visible(cutText(messageOf(error), 4_000));

/** A setup problem as ACP sees it: no model or key → auth required (-32000); anything else → its message. */
export async function setupError(error: unknown): Promise<acp.RequestError> {
  const { SetupRequiredError } = await import("../errors/configError.ts");
  if (error instanceof SetupRequiredError)
    return acp.RequestError.authRequired({ missing: error.missing }, error.message);
  return new acp.RequestError(-32603, shownError(error));
}
