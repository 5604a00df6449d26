// How a tool call's text reads in the editor, which renders it as Markdown. A tool's output (a
// command's lines, a file excerpt, grep results, an edit's summary, an MCP server's answer) goes
// as a fenced code block: its lines stay, and nothing a file or a command printed becomes markup,
// a link or an image. Prose stays as it is: a subagent's answer (the model writes Markdown) and
// Garuda's own words (why a call was denied, "Cancelled.").
import type { ToolKind } from "@agentclientprotocol/sdk";
import type { CallInfo } from "../core-types/callInfo.ts";
import { cutText } from "../text/cut.ts";
import { visible } from "../text/visible.ts";
import { codeBlock, languageOf } from "./codeBlock.ts";

/** How a call's output is sent: as prose, or as code (with the language of a file that was read). */
export type OutputStyle = { prose: true } | { prose: false; language?: string };

export const PROSE: OutputStyle = { prose: true };
export const CODE: OutputStyle = { prose: false };

/** The style of a call's result, from its tool, its kind (toolCalls.ts) and what it touches. */
export function outputStyle(tool: string, kind: ToolKind, info: CallInfo): OutputStyle {
  // A subagent's result is its model's answer. The plan (todo, also "think") is a list of lines.
  if (kind === "think" && tool !== "todo") return PROSE;
  const path = info.locations[0]?.path;
  const language = tool === "read_file" && path !== undefined ? languageOf(path) : undefined;
  return language === undefined ? CODE : { prose: false, language };
}

/** The text as sent: hidden characters made visible, output fenced. */
export function styledText(text: string, style: OutputStyle, limit?: number): string {
  // Cut before the fence goes on, so a cut never leaves a block open.
  const shown = limit === undefined ? visible(text) : cutText(visible(text), limit);
  return style.prose || shown.trim() === "" ? shown : codeBlock(shown, style.language);
}
