// What a turn changed, for the editor at the end of the turn (runtime turnChanges(): the undo
// snapshots, so command writes too): one summary tool call (kind `edit`, one `diff` per file
// within the bounds, so Zed shows a diff viewer per file; the rest by name, gitignored files named
// as not tracked, and whether the list is complete), and JetBrains AIR's file-change report when
// the prompt asked for one (`_meta.jetbrains.air.agentFileChangeReportRequest {version: 1,
// requestId}` on session/prompt; answered with `session_info_update._meta.jetbrains.air.
// agentFileChangeReport {version, requestId, status, paths, declaredComplete, truncated}`, the
// shapes of claude-agent-acp's docs/air-extensions.md). reportChanges sends both, for session.ts.
import { randomBytes } from "node:crypto";
import { isAbsolute, relative } from "node:path";
import type * as acp from "@agentclientprotocol/sdk";
import type { TurnChanges } from "../core-types/turnChanges.ts";
import { stackOf } from "../errors/caught.ts";
import type { Runtime } from "../runtime/runtime.ts";
import { oneLine } from "../text/visible.ts";
import { escapeMarkdown, inlineCode } from "./codeBlock.ts";
import { AIR_VERSION, FILE_CHANGE_REPORT } from "./airMeta.ts";
import { diffContent, textContent } from "./toolCallContent.ts";

/** AIR's bounds on a report: paths, and bytes of the whole report. */
const MAX_REPORT_PATHS = 1024;
const MAX_REPORT_BYTES = 256 * 1024;

type Available = Extract<TurnChanges, { available: true }>;

/** A path in the project as the project names it; a folder keeps its "/". */
const shownPath = (path: string, root: string) => {
  const rel = relative(root, path);
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel) ? `${rel}${path.endsWith("/") ? "/" : ""}` : path;
};

/** The summary's text: every file named, what has no diff and why, and whether the list is complete. */
function summaryText(changes: Available, root: string, withDiff: ReadonlySet<string>): string {
  const name = (path: string) => inlineCode(oneLine(shownPath(path, root), 300));
  const lines = [
    ...changes.files.map((file) => {
      const noDiff = withDiff.has(file.path) ? "" : ` (no diff: ${escapeMarkdown(file.noDiff ?? "too large to show")})`;
      return `- ${name(file.path)} ${file.status}${noDiff}`;
    }),
    ...changes.untracked.map((entry) => `- ${name(entry.path)} ${escapeMarkdown(entry.why)}`),
  ];
  const verdict = changes.complete
    ? "This list is complete: it names every file the turn changed in the project, by edit tools and by commands."
    : `This list may miss changes: ${changes.gaps.map((gap) => escapeMarkdown(gap)).join("; ")}.`;
  return [...lines, "", verdict].join("\n");
}

/** The summary tool call, or undefined when the turn changed nothing. */
export function changesToolCall(changes: TurnChanges, root: string): acp.SessionUpdate | undefined {
  if (!changes.available || changes.files.length + changes.untracked.length === 0) return undefined;
  const diffs: acp.ToolCallContent[] = [];
  const withDiff = new Set<string>();
  for (const file of changes.files) {
    if (!file.diff) continue;
    const content = diffContent({ path: file.path, oldText: file.diff.oldText, newText: file.diff.newText });
    if (!content) continue;
    diffs.push(content);
    withDiff.add(file.path);
  }
  const count = changes.files.length + changes.untracked.length;
  return {
    sessionUpdate: "tool_call",
    toolCallId: `turn-changes-${randomBytes(6).toString("hex")}`,
    title: `${changes.truncated ? "More than " : ""}${count} ${count === 1 ? "file" : "files"} changed in this turn`,
    kind: "edit",
    status: "completed",
    content: [...diffs, textContent(summaryText(changes, root, withDiff))],
    locations: changes.files.filter((file) => file.status !== "deleted").map((file) => ({ path: file.path })),
  };
}

/** AIR's report: the changed files' absolute paths, complete only when the turn's list is. */
export function fileChangeReport(changes: TurnChanges, requestId: string): acp.SessionUpdate {
  const payload = changes.available
    ? reported(changes, requestId)
    : { version: AIR_VERSION, requestId, status: "unavailable", reason: "notReported" };
  return {
    sessionUpdate: "session_info_update",
    _meta: { jetbrains: { air: { version: AIR_VERSION, [FILE_CHANGE_REPORT]: payload } } },
  };
}

function reported(changes: Available, requestId: string) {
  // Paths that changed: files, and folders removed whole; not a folder whose entries changed (its
  // files are named, and what it lost makes the list incomplete).
  const all = [
    ...changes.files.map((file) => file.path),
    ...changes.untracked.flatMap((entry) =>
      entry.removed ? [entry.path.replace(/\/$/, "")] : entry.path.endsWith("/") ? [] : [entry.path],
    ),
  ];
  const paths: string[] = [];
  let bytes = 0;
  for (const path of all) {
    bytes += Buffer.byteLength(JSON.stringify(path)) + 1;
    if (paths.length >= MAX_REPORT_PATHS || bytes > MAX_REPORT_BYTES - 1024) break;
    paths.push(path);
  }
  const truncated = changes.truncated || paths.length < all.length;
  return {
    version: AIR_VERSION,
    requestId,
    status: "reported",
    paths,
    declaredComplete: changes.complete && !truncated,
    truncated,
  };
}

/** What a turn changed: the summary tool call, and AIR's report when asked for. Never throws. */
export async function reportChanges(
  runtime: Pick<Runtime, "turnChanges" | "root">,
  reportId: string | undefined,
  to: { send: (update: acp.SessionUpdate) => void; log: (text: string) => void },
): Promise<void> {
  let changes: TurnChanges;
  try {
    changes = await runtime.turnChanges();
  } catch (error) {
    to.log(`garuda acp: what the turn changed could not be read: ${stackOf(error)}`);
    changes = { available: false, reason: "it could not be read" };
  }
  const summary = changesToolCall(changes, runtime.root);
  if (summary) to.send(summary);
  if (reportId !== undefined) to.send(fileChangeReport(changes, reportId));
}
