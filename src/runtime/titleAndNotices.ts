// What a session file keeps besides the conversation, so a replay shows what the user saw: the
// notices of each turn (written from the turn's prompt on; the ones before it wait for it) and
// the session's title, made from its first prompt. Also what a resumed file says about itself:
// its usage so far, its last mode, its title, and which damaged lines were skipped.
import type { Usage } from "../core-types/usage.ts";
import type { Mode } from "../core-types/mode.ts";
import type { SessionData } from "../store/sessionFile.ts";
import type { PromptBlock } from "../store/sessionRecords.ts";
import { sessionTitle } from "../store/sessionTitle.ts";
import type { Conversation } from "./conversation.ts";
import type { AgentEvent } from "../core-types/events.ts";
import type { Notice } from "./services.ts";

/** What a resumed file says about the session, besides its messages. */
export interface ResumedState {
  usages: Usage[];
  lastMode: Mode | undefined;
  title: string | undefined;
  firstPrompt: readonly PromptBlock[] | string | undefined;
  /** The skipped lines, for the user; undefined when none were. */
  damage: string | undefined;
}

export function resumedState(data: SessionData): ResumedState {
  const state: ResumedState = {
    usages: [],
    lastMode: undefined,
    title: undefined,
    firstPrompt: undefined,
    damage: undefined,
  };
  for (const record of data.records) {
    if (record.type === "assistant") state.usages.push(record.usage);
    if (record.type === "compaction" && record.usage) state.usages.push(record.usage);
    if (record.type === "start" || record.type === "resume" || record.type === "mode") state.lastMode = record.mode;
    if (record.type === "title") state.title = record.title;
    if (record.type === "user" && !record.synthetic) state.firstPrompt ??= record.shown ?? record.prompt;
  }
  const [first] = data.skipped;
  if (first) {
    const where = `${first.line}: ${first.reason}`;
    state.damage =
      data.skipped.length === 1
        ? `The session file has a damaged line (${where}); it was skipped.`
        : `The session file has ${data.skipped.length} damaged lines (the first is ${where}); they were skipped.`;
  }
  return state;
}

export class TitleAndNotices {
  #title: string | undefined;
  #firstPrompt: readonly PromptBlock[] | string | undefined;
  /** Notices of the running turn before its prompt was recorded; undefined: record at once. */
  #waiting: Notice[] | undefined;

  constructor(
    private readonly conversation: Conversation,
    resumed: ResumedState | undefined,
  ) {
    this.#title = resumed?.title;
    this.#firstPrompt = resumed?.firstPrompt;
  }

  get title(): string | undefined {
    return this.#title;
  }

  /** A turn starts: its notices wait for its prompt. */
  beginTurn(): void {
    this.#waiting = [];
  }

  /** The turn ended: notices of a turn that recorded no prompt are not kept. */
  endTurn(): void {
    this.#waiting = undefined;
  }

  /** Keeps a notice event of the turn. */
  event(event: AgentEvent): void {
    if (event.type !== "notice") return;
    const notice: Notice = { level: event.level, text: event.text };
    if (this.#waiting) this.#waiting.push(notice);
    else this.conversation.record({ type: "notice", ...notice });
  }

  /** The turn's prompt is recorded: its notices so far follow it, and the first prompt names the session. */
  promptRecorded(typed: readonly PromptBlock[] | string, emit: (event: AgentEvent) => void): void {
    for (const notice of this.#waiting?.splice(0) ?? []) this.conversation.record({ type: "notice", ...notice });
    this.#waiting = undefined;
    if (this.#title !== undefined) return;
    const title = sessionTitle(this.#firstPrompt ?? typed);
    if (title === undefined) return;
    this.#title = title;
    this.conversation.record({ type: "title", title });
    emit({ type: "title", title });
  }
}
