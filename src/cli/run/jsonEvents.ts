// `garuda run --format json`: one JSON object per line. A "start" line, every AgentEvent of the
// turn (a tool call with its display title and without the file contents of its change) but a
// command's raw output chunks (tool_output: uncleaned, and as long as the output; its latest lines
// come as tool_progress, what the model read in tool_result), and a last "result" line with the
// stop reason, the exit code, the answer and what was denied.
import type { AgentEvent } from "../../core-types/events.ts";
import { callTitle, serverToolTitle, shownLocations } from "../../display/callTitle.ts";

export type JsonLine = Record<string, unknown> & { type: string };

/** The event as a JSON line's object; undefined for an event that has no line. */
export function jsonEvent(event: AgentEvent): JsonLine | undefined {
  switch (event.type) {
    case "tool_output":
    // The subagent's own text (its answer is the call's result), its start and end: no line.
    case "subagent":
      return undefined;
    case "tool_call": {
      const { info, ...rest } = event;
      return {
        ...rest,
        title: callTitle(event.tool, info),
        kind: info.kind,
        locations: shownLocations(info.locations),
      };
    }
    case "server_tool": {
      // The line keeps the fields it always had: the title, not the CallInfo or the summary.
      if (event.status === "started") {
        const { info, ...rest } = event;
        return { ...rest, title: serverToolTitle(info) };
      }
      const { summary: _summary, ...rest } = event;
      return rest;
    }
    default:
      return { ...event };
  }
}

/** One line of JSON; never more than one line, whatever the text holds. */
export function jsonLine(line: JsonLine): string {
  return `${JSON.stringify(line)}\n`;
}
