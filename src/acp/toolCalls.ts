// How a tool call looks in the editor: its title and kind (the shared display rules of
// src/display/callTitle.ts, the same words as the terminal) and the absolute locations the editor
// can follow.
import { isAbsolute, resolve } from "node:path";
import type { ToolCallLocation, ToolKind } from "@agentclientprotocol/sdk";
import { callDisplay, serverToolTitle, shownLocations } from "../display/callTitle.ts";
import type { CallInfo } from "../core-types/callInfo.ts";
import { oneLine } from "../text/visible.ts";
import { escapeMarkdown } from "./codeBlock.ts";

export interface ToolCallView {
  title: string;
  kind: ToolKind;
  locations: ToolCallLocation[];
}

/**
 * Absolute paths only (a relative one is taken against the root), lines only when positive; a
 * path with hidden characters is left out (shownLocations).
 */
function callLocations(locations: CallInfo["locations"], root: string): ToolCallLocation[] {
  return shownLocations(locations).map((location) => {
    const path = isAbsolute(location.path) ? location.path : resolve(root, location.path);
    return location.line !== undefined && Number.isInteger(location.line) && location.line > 0
      ? { path, line: location.line }
      : { path };
  });
}

/** Title, kind and locations of a call, from the tool's own CallInfo. */
export function toolCallView(tool: string, info: CallInfo, root: string): ToolCallView {
  return { ...callDisplay(tool, info), locations: callLocations(info.locations, root) };
}

/** A tool the provider runs itself (Claude's web search), from the CallInfo its event carries. */
export function serverToolView(info: CallInfo): ToolCallView {
  return { title: serverToolTitle(info), kind: info.kind, locations: [] };
}

/** The text of a finished server tool: its summary, then the results found (title and address). */
export function serverToolResult(summary: string, result: unknown): string {
  if (!Array.isArray(result)) return summary;
  const lines = result.flatMap((item) => {
    if (typeof item !== "object" || item === null) return [];
    const { title, url } = item as { title?: unknown; url?: unknown };
    if (typeof url !== "string") return [];
    // The page's title is the page's own text: escaped, so it cannot be a link or an image.
    return [
      `- ${escapeMarkdown(oneLine(typeof title === "string" && title !== "" ? title : url))} (${oneLine(url, 500)})`,
    ];
  });
  return lines.length > 0 ? `${summary}\n${lines.join("\n")}` : summary;
}
