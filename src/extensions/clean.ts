// Text from extension files and MCP servers. On its way to the model: hidden characters made
// visible, Garuda's own markers defused (so a file or a server cannot close a <skill> or
// <mcp_result> block, or open a note of Garuda's), length capped. In a question or a title it
// stays as written (only capped): front ends escape it and warn about hidden characters.
import { visible } from "../text/visible.ts";
import { groupedCount } from "../text/count.ts";

const MARKERS = /<(\/?)(garuda_[a-z_]*|mcp_result|web_result|skill|agent_prompt|hook_feedback|system[a-z_-]*)/gi;

/** Cleans text for the model or a preview; `max` in characters, with a note when cut. */
export function cleanText(text: string, max: number): string {
  const cleaned = visible(text.replace(/\r\n/g, "\n")).replace(MARKERS, "‹$1$2");
  if (cleaned.length <= max) return cleaned;
  return `${cleaned.slice(0, max)}\n[… cut: ${groupedCount(cleaned.length - max)} more characters]`;
}

/** A short one-line text (a description in a tool list): blanks folded, cut at `max`. */
export function shortLine(text: string, max: number): string {
  const line = visible(text.replace(/\s+/g, " ")).replace(MARKERS, "‹$1$2").trim();
  const chars = [...line];
  return chars.length > max ? `${chars.slice(0, max - 1).join("")}…` : line;
}

/**
 * Text for a question's preview or a title: left as written (front ends show it through
 * visible(), and the engine adds the hidden-character warning), only cut to `max` characters.
 */
export function previewText(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}\n[… ${groupedCount(text.length - max)} more characters]` : text;
}

/** One line of raw text for a preview: line breaks shown as ↵, cut to `max` characters. */
export function previewLine(text: string, max: number): string {
  const line = text.replace(/\r?\n/g, " ↵ ");
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
