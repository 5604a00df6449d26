// What a hook prints reaches the model (a block reason, feedback) and the user (a warning):
// hidden characters made visible, length capped, and Garuda's own markers defused so a hook
// cannot close a <hook_feedback> block or open a note of Garuda's.
import { visible } from "../text/visible.ts";

const MAX_HOOK_TEXT = 4_000;

const MARKERS = /<(\/?)(hook_feedback|garuda_[a-z_]*|mcp_result|web_result|skill|system[a-z_-]*)/gi;

export function cleanHookText(text: string, max = MAX_HOOK_TEXT): string {
  const cleaned = visible(text.replace(/\r\n/g, "\n")).replace(MARKERS, "‹$1$2").trim();
  const chars = [...cleaned];
  return chars.length > max ? `${chars.slice(0, max - 1).join("")}…` : cleaned;
}
