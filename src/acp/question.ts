// What a question shows in the editor besides its options. Editors render the text part as
// Markdown, so the preview (a command, a diff, a server's definition) goes as a fenced block:
// `rm *.log *.tmp` must not turn into italics, a command must not look like another one. For a
// file change the editor shows its own diff view from the ACP diff, so the text carries only
// what that view cannot: why it asks, a symlink the write goes through, the hidden characters
// made visible with the warning, and what "Allow for this session" allows. Above 1 MB there is
// no diff, and the text carries the whole preview.
import type { ToolCallContent } from "@agentclientprotocol/sdk";
import { HIDDEN_WARNING } from "../cli/approver.ts";
import type { ApprovalRequest } from "../permission/types.ts";
import { addedLines } from "../text/addedLines.ts";
import { hasHidden, oneLine, visible } from "../text/visible.ts";
import { codeBlock, inlineCode } from "./codeBlock.ts";
import { diffContent, textContent } from "./toolCallContent.ts";

/** At most this many lines with hidden characters are listed beside the diff. */
export const MAX_HIDDEN_LINES = 20;

/** What is asked and why: the consent's own question, the note ("It is outside the project folder."). */
function reasonParts(request: ApprovalRequest): string[] {
  const parts: string[] = [];
  if (request.question) parts.push(oneLine(request.question, 500));
  if (request.note) parts.push(`(${oneLine(request.note, 500)})`);
  return parts;
}

/** The scope of "Allow for this session", each rule as code (rules hold `*`). */
function scopePart(request: ApprovalRequest): string[] {
  if (!request.sessionRules || request.sessionRules.length === 0 || !request.choices.includes("session")) return [];
  return [
    `“${oneLine(request.labels.session)}” allows: ` +
      `${request.sessionRules.map((rule) => inlineCode(oneLine(rule))).join(", ")}`,
  ];
}

/** The question's whole text: what is asked, why, the preview (hidden characters visible), the scope. */
export function questionText(request: ApprovalRequest): string {
  const preview = visible(request.preview);
  const parts = [...reasonParts(request)];
  if (request.hidden) parts.push(HIDDEN_WARNING);
  if (preview.trim() !== "") parts.push(codeBlock(preview, request.change ? "diff" : ""));
  parts.push(...scopePart(request));
  return parts.join("\n\n");
}

/** The lines of a change's preview above its diff (the symlink the write goes through). */
function aboveDiff(preview: string): string[] {
  const lines = preview.split("\n");
  const start = lines.findIndex((line) => line.startsWith("--- "));
  return start <= 0 ? [] : lines.slice(0, start).filter((line) => line.trim() !== "");
}

/**
 * The lines with hidden characters, made visible: those of the preview (its header names the
 * path), then lines the change adds beyond what the preview shows.
 */
function hiddenLines(request: ApprovalRequest): string[] {
  const shown = new Set<string>();
  const lines: string[] = [];
  const take = (line: string) => {
    const text = visible(line);
    if (!shown.has(text)) {
      shown.add(text);
      lines.push(text);
    }
  };
  for (const line of request.preview.split("\n")) if (hasHidden(line)) take(line);
  const change = request.change;
  if (change) for (const line of addedLines(change.oldText, change.newText)) if (hasHidden(line)) take(`+${line}`);
  if (lines.length <= MAX_HIDDEN_LINES) return lines;
  return [
    ...lines.slice(0, MAX_HIDDEN_LINES),
    `… ${lines.length - MAX_HIDDEN_LINES} more lines with hidden characters`,
  ];
}

/** The text beside an ACP diff: only what the editor's diff view cannot show; "" when nothing. */
function besideDiffText(request: ApprovalRequest): string {
  const parts = [...reasonParts(request)];
  const above = aboveDiff(request.preview);
  if (above.length > 0) parts.push(codeBlock(visible(above.join("\n"))));
  if (request.hidden) {
    parts.push(HIDDEN_WARNING);
    const lines = hiddenLines(request);
    if (lines.length > 0) parts.push(codeBlock(lines.join("\n"), "diff"));
  }
  parts.push(...scopePart(request));
  return parts.join("\n\n");
}

/**
 * The question's content. A file change: the ACP diff and, when there is any, the text beside
 * it (first, with its warning, when hidden characters are in play). Anything else, or a change
 * above 1 MB: the whole text.
 */
export function questionContent(request: ApprovalRequest): ToolCallContent[] {
  const diff = request.change ? diffContent(request.change) : undefined;
  if (!diff) return [textContent(questionText(request))];
  const beside = besideDiffText(request);
  if (beside === "") return [diff];
  return request.hidden ? [textContent(beside), diff] : [diff, textContent(beside)];
}
