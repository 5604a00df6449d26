// The conversations of this folder, for --continue and --resume: the session files under
// ~/.garuda/sessions/<project>-<hash8>/, newest first, each with its first prompt and turn count,
// and what a resumed chat shows of the conversation so far.
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Mode } from "../../core-types/mode.ts";
import { readSession, sessionFolder } from "../../store/sessionFile.ts";
import { type ReplayedTurn, replayTurns } from "../../store/sessionHistory.ts";
import { callTitle } from "../../display/callTitle.ts";

export interface SessionSummary {
  id: string;
  file: string;
  modified: Date;
}

export interface SessionDetails extends SessionSummary {
  turns: ReplayedTurn[];
  /** The mode the session last ran in. */
  mode: Mode | undefined;
  model: string | undefined;
  damaged?: string;
}

/** The folder's session files, the most recently used first. */
export function listSessions(sessionsDir: string, root: string): SessionSummary[] {
  const folder = sessionFolder(sessionsDir, root);
  let names: string[];
  try {
    names = readdirSync(folder).filter((name) => name.endsWith(".jsonl"));
  } catch {
    return [];
  }
  const sessions: SessionSummary[] = [];
  for (const name of names) {
    const file = join(folder, name);
    try {
      const stat = statSync(file);
      if (stat.isFile()) sessions.push({ id: name.slice(0, -".jsonl".length), file, modified: stat.mtime });
    } catch {
      // Gone since the listing.
    }
  }
  return sessions.sort((a, b) => b.modified.getTime() - a.modified.getTime() || (a.id < b.id ? 1 : -1));
}

export function sessionDetails(summary: SessionSummary): SessionDetails {
  const data = readSession(summary.file);
  let mode: Mode | undefined;
  let model: string | undefined;
  for (const record of data.records) {
    if (record.type === "start" || record.type === "resume") {
      mode = record.mode;
      model = record.model;
    } else if (record.type === "mode") {
      mode = record.mode;
    }
  }
  return {
    ...summary,
    turns: replayTurns(data.records).filter((turn) => turn.prompt !== ""),
    mode,
    model,
    ...(data.damaged && { damaged: `line ${data.damaged.line}: ${data.damaged.reason}` }),
  };
}

/** The session with this id, or the only one whose id starts with it. */
export function findSession(sessions: readonly SessionSummary[], id: string): SessionSummary | "ambiguous" | undefined {
  const exact = sessions.find((session) => session.id === id);
  if (exact) return exact;
  const matches = sessions.filter((session) => session.id.startsWith(id));
  if (matches.length > 1) return "ambiguous";
  return matches[0];
}

/**
 * A replayed turn's steps, each a part of its own: the answer's texts (a text the model wrote
 * after a call is a new part, as the live chat starts it on a line of its own) and the calls'
 * titles, "● Read notes.txt".
 */
export function turnSteps(turn: ReplayedTurn): string[] {
  const steps: string[] = [];
  let text = "";
  const flush = () => {
    if (text.trim() !== "") steps.push(text.trim());
    text = "";
  };
  for (const event of turn.events) {
    if (event.type === "text_delta") text += event.text;
    else if (event.type === "tool_call" && event.parentCallId === undefined) {
      flush();
      steps.push(`● ${callTitle(event.tool, event.info)}`);
    } else if (event.type !== "thinking_delta") flush();
  }
  flush();
  return steps;
}

/** "2026-10-06 14:03". */
export function when(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  return (
    `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ` +
    `${pad(date.getHours())}:${pad(date.getMinutes())}`
  );
}
