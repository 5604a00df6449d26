// The question a front end shows, built from a PermissionRequest. Text stays as the tool wrote
// it (front ends pass it through visible()); `hidden` says whether anything would be escaped,
// so the warning line appears.
import { addedLines } from "../text/addedLines.ts";
import { hasHidden } from "../text/visible.ts";
import type { ApprovalRequest, Choice, PermissionRequest } from "./types.ts";

export const CHOICE_LABELS: Readonly<Record<Choice, string>> = {
  once: "Allow once",
  session: "Allow for this session",
  deny: "Deny",
};

export interface ApprovalOptions {
  /** The rules "session" would add; undefined = no "Allow for this session" choice. */
  sessionRules: string[] | undefined;
  /** The session choice's name when it allows more than the usual words say ("Allow all edits for this session"). */
  sessionLabel?: string;
  /** Why this asks, when it is not the usual reason. */
  note?: string;
}

function targetText(request: PermissionRequest): string {
  const target = request.target;
  switch (target.kind) {
    case "path":
      return `${target.path}\n${target.realPath ?? ""}`;
    case "command":
      return target.command;
    case "url":
      return target.url;
    case "network":
      return target.host;
    case "input":
      return "";
  }
}

export function buildApprovalRequest(request: PermissionRequest, options: ApprovalOptions): ApprovalRequest {
  const choices: Choice[] = options.sessionRules ? ["once", "session", "deny"] : ["once", "deny"];
  // The change itself too: the preview is cut (a long diff), and an editor shows the whole change.
  const change = request.change;
  const hidden =
    [request.title, request.preview, request.question ?? "", targetText(request)].some(hasHidden) ||
    (change !== undefined && addedLines(change.oldText, change.newText).some(hasHidden));
  const approval: ApprovalRequest = {
    tool: request.tool,
    title: request.title,
    preview: request.preview,
    choices,
    labels: {
      ...CHOICE_LABELS,
      ...(options.sessionRules && options.sessionLabel !== undefined && { session: options.sessionLabel }),
    },
    hidden,
  };
  if (request.callId !== undefined) approval.callId = request.callId;
  if (request.change) approval.change = request.change;
  if (request.question !== undefined) approval.question = request.question;
  if (options.sessionRules) approval.sessionRules = options.sessionRules;
  if (options.note !== undefined) approval.note = options.note;
  return approval;
}
