// Rewind: a session's points (one per prompt: its message id, the files just before it) and the
// two halves of going back to one, shared by both front ends. The files go back through the undo
// store's snapshots (every change since, by edit tools and by sandboxed commands), the
// conversation through a `rewind` record in the session file, read back the way a resume reads
// it, so the next request, a resume and a replay agree (store/rewindRecords.ts). A file changed
// outside Garuda since it last recorded the files is overwritten only when the user says so.
import type { Approver } from "../permission/types.ts";
import { type RecordedRewinds, type RewindPoint, recordedRewinds, withoutRewound } from "../store/rewindRecords.ts";
import { rebuildMessages, type SessionRecord } from "../store/sessionRecords.ts";
import {
  endRef,
  type FilesPlan,
  MAX_FILE_POINTS,
  planFiles,
  pointRef,
  removeSessionRefs,
  restoreFiles,
  sessionsWithRefs,
  type SnapshotAccess,
  updateRefs,
} from "../store/rewindFiles.ts";
import { isSessionId, readSessionLater } from "../store/sessionFile.ts";
import { stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import { limitLines } from "../store/undoTree.ts";
import type { Conversation } from "./conversation.ts";
import type { UndoStore } from "./services.ts";

export type RewindMode = "files" | "conversation" | "both";

export interface RewindRequest {
  messageId: string;
  mode: RewindMode;
  /** Say what would change, change nothing. */
  dryRun: boolean;
}

/** A point as a front end lists it. */
export interface RewindPointView {
  messageId: string;
  /** The prompt's first line. */
  text: string;
  /** Its place among the session's points, from 0. */
  index: number;
  time: string;
  /** Files the turns after it changed; absent when its files are not kept. */
  filesChanged?: string[];
  /** Why its files cannot be put back, when they cannot. */
  filesNote?: string;
}

export interface FilesRewind {
  canRewind: boolean;
  error?: string;
  /** What was (or, in a dry run, would be) put back or removed. */
  filesChanged: string[];
  restored: string[];
  removed: string[];
  /** Changed outside Garuda since: asked about (in a dry run: would be asked about). */
  changedOutside: string[];
  /** Lines for the user. */
  notes: string[];
}

export interface ConversationRewind {
  rewound: boolean;
  /** Messages of the conversation dropped (in a dry run: that would be). */
  messagesDropped: number;
  error?: string;
}

export interface RewindResult {
  files?: FilesRewind;
  conversation?: ConversationRewind;
}

export interface RewindDeps {
  conversation: Conversation;
  undo: UndoStore | undefined;
  approver: Approver | undefined;
  /** Notes for the model's next user message. */
  notes: string[];
  /** The session's own signal (a question asked during a rewind ends with the session). */
  signal: AbortSignal;
  /** The most points whose files are kept (default MAX_FILE_POINTS). */
  maxFilePoints?: number;
}

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );
const firstLine = (text: string) => (text.trim().split("\n")[0] ?? "").slice(0, 200);
const UNKEPT = "Its files are not kept (undo was off, or it is older than the newest points).";

export class SessionRewinds {
  readonly #d: RewindDeps;
  readonly #points: RewindPoint[];
  #known: string | undefined;
  #droppedNoted = false;
  /** The running turn's point being pinned (off the turn's path: the model does not wait for git). */
  #pinning: Promise<void> = Promise.resolve();
  /** The points read from the file are pinned under this session's name (#adoption), once. */
  #adopted = false;

  constructor(deps: RewindDeps, recorded: RecordedRewinds | undefined) {
    this.#d = deps;
    this.#points = recorded?.points ?? [];
    this.#known = recorded?.known;
    // Only the newest points keep their files (rewindFiles.ts); older refs are gone or going.
    const kept = this.#points.filter((point) => point.tree !== undefined);
    for (const point of kept.slice(0, Math.max(0, kept.length - this.#max))) delete point.tree;
  }

  static fromRecords(deps: RewindDeps, records: readonly SessionRecord[] | undefined): SessionRewinds {
    return new SessionRewinds(deps, records && recordedRewinds(records));
  }

  get #max(): number {
    return this.#d.maxFilePoints ?? MAX_FILE_POINTS;
  }

  get #session(): string | undefined {
    return this.#d.conversation.journal?.id;
  }

  #snapshots<T>(work: (access: SnapshotAccess) => Promise<T>): Promise<T | undefined> {
    return this.#d.undo?.withSnapshots?.(work) ?? Promise.resolve(undefined);
  }

  /**
   * A prompt was recorded: its point, with the files of the snapshot its turn began with (pinned
   * while the model works; everything else here waits for it). A point beyond the newest
   * MAX_FILE_POINTS lets go of the oldest one's files (a notice, once).
   */
  pointTaken(messageId: string, text: string, warn: (text: string) => void): void {
    const point: RewindPoint = { messageId, text, time: new Date().toISOString() };
    this.#points.push(point);
    const previous = this.#pinning;
    this.#pinning = previous.then(() => this.#pin(point, warn)).catch(() => {});
  }

  async #pin(point: RewindPoint, warn: (text: string) => void): Promise<void> {
    const { messageId } = point;
    const session = this.#session;
    if (session === undefined) return;
    const kept = this.#points.filter((each) => each.tree !== undefined);
    const released = kept.slice(0, Math.max(0, kept.length + 1 - this.#max));
    const adopt = !this.#adopted;
    this.#adopted = true;
    const tree = await this.#snapshots(async (access) => {
      const before = access.lastTurn().before;
      if (before === undefined) return undefined;
      const release = released.map((each) => pointRef(session, each.messageId));
      const failed = await updateRefs(access.git, [{ ref: pointRef(session, messageId), tree: before }], release);
      // Apart: an inherited point whose files git has let go of (its refs were lost) must not cost this one its pin.
      if (adopt)
        await updateRefs(
          access.git,
          (await this.#adoption(access, session)).filter(({ ref }) => !release.includes(ref)),
        );
      return failed === undefined ? before : undefined;
    });
    if (tree === undefined) return;
    point.tree = tree;
    this.#known = tree;
    this.#d.conversation.record({ type: "snapshot", tree, before: messageId });
    for (const each of released) delete each.tree;
    if (released.length > 0 && !this.#droppedNoted) {
      this.#droppedNoted = true;
      warn(
        `A session keeps the files of its newest ${this.#max} prompts for rewind; older ` +
          `prompts can rewind the conversation only.`,
      );
    }
  }

  /**
   * Once per runtime, with its first point: the refs of the points it read from its file, under
   * its own name (a forked session's points were pinned by the session it came from), and the
   * refs of this project's sessions whose files are gone (deleted) are deleted, so the store
   * keeps only what some session file can still name.
   */
  async #adoption(access: SnapshotAccess, session: string): Promise<Array<{ ref: string; tree: string }>> {
    const file = this.#d.conversation.journal?.file;
    const named = (await sessionsWithRefs(access.git)) ?? [];
    if (file !== undefined) {
      const folder = dirname(file);
      const gone: string[] = [];
      for (const name of named)
        if (name !== session && isSessionId(name) && !(await exists(join(folder, `${name}.jsonl`)))) gone.push(name);
      await removeSessionRefs(access.git, gone);
    }
    return this.#points.flatMap((point) =>
      point.tree === undefined ? [] : [{ ref: pointRef(session, point.messageId), tree: point.tree }],
    );
  }

  /** Records the files as they are now (a turn ended, /undo ran): later changes are someone else's. */
  async filesSettled(take: "turn" | "now"): Promise<void> {
    await this.#pinning;
    const session = this.#session;
    if (session === undefined) return;
    const tree = await this.#snapshots(async (access) => {
      const found = take === "turn" ? access.lastTurn().after : await access.takeTree();
      if (found === undefined || found === this.#known) return undefined;
      return (await updateRefs(access.git, [{ ref: endRef(session), tree: found }])) === undefined ? found : undefined;
    });
    if (tree === undefined) return;
    this.#known = tree;
    this.#d.conversation.record({ type: "snapshot", tree });
  }

  /** The points, oldest first, each with the files the turns after it changed. */
  async list(): Promise<RewindPointView[]> {
    await this.#pinning;
    const known = this.#known;
    const changed = await this.#snapshots(async (access) => {
      const byPoint = new Map<string, string[]>();
      for (const point of this.#points) {
        if (point.tree === undefined || known === undefined) continue;
        const diff = await access.diffTrees(point.tree, known);
        if (diff)
          byPoint.set(
            point.messageId,
            diff.map((change) => change.path),
          );
      }
      return byPoint;
    });
    return this.#points.map((point, index) => {
      const files = changed?.get(point.messageId);
      return {
        messageId: point.messageId,
        text: firstLine(point.text),
        index,
        time: point.time,
        ...(files ? { filesChanged: files } : { filesNote: this.#d.undo ? UNKEPT : "Undo is off in this session." }),
      };
    });
  }

  /** The point `n` prompts back (1: the last prompt), for /undo N. */
  pointBack(n: number): RewindPoint | undefined {
    return this.#points[this.#points.length - n];
  }

  async rewind(request: RewindRequest): Promise<RewindResult> {
    await this.#pinning;
    const index = this.#points.findIndex((point) => point.messageId === request.messageId);
    const point = this.#points[index];
    if (!point) throw new RewindError(`No prompt of this session has the message id "${request.messageId}".`);
    const result: RewindResult = {};
    if (request.mode !== "conversation") result.files = await this.#files(point, request.dryRun);
    if (request.mode !== "files") result.conversation = await this.#conversation(point, index, request.dryRun);
    if (!request.dryRun) this.#noteForModel(point, result);
    return result;
  }

  async #files(point: RewindPoint, dryRun: boolean): Promise<FilesRewind> {
    const none = (error: string): FilesRewind => ({
      canRewind: false,
      error,
      filesChanged: [],
      restored: [],
      removed: [],
      changedOutside: [],
      notes: [error],
    });
    const tree = point.tree;
    if (tree === undefined) return none(this.#d.undo ? UNKEPT : "Undo is off in this session, so no files are kept.");
    const known = this.#known;
    const plan = await this.#snapshots((access) => planFiles(access, tree, known));
    if (plan === undefined) return none("The snapshot store could not be read, so the files were not put back.");
    const notes = limitLines(plan.skipped.map((skip) => `Left ${skip.path} as it is: ${skip.why}.`));
    const all = [...plan.restore, ...plan.remove];
    if (dryRun) {
      if (plan.outside.length > 0)
        notes.push(
          `Changed outside Garuda since its last turn (you would be asked first): ${plan.outside.join(", ")}.`,
        );
      return { canRewind: true, filesChanged: all, restored: [], removed: [], changedOutside: plan.outside, notes };
    }
    const keep = plan.outside.length > 0 && !(await this.#overwrite(plan, point)) ? new Set(plan.outside) : new Set();
    if (keep.size > 0)
      notes.push(`Left as they are (changed outside Garuda, and you said no): ${[...keep].join(", ")}.`);
    const files = {
      restore: plan.restore.filter((path) => !keep.has(path)),
      remove: plan.remove.filter((path) => !keep.has(path)),
    };
    const failed = await this.#snapshots(async (access) => {
      const error = await restoreFiles(access.git, tree, files);
      // The per-turn undo points describe files that are no longer there.
      access.forget();
      return error;
    });
    if (failed !== undefined) return { ...none(`Rewind failed: ${failed}.`), changedOutside: plan.outside };
    await this.filesSettled("now");
    return {
      canRewind: true,
      filesChanged: [...files.restore, ...files.remove],
      restored: files.restore,
      removed: files.remove,
      changedOutside: plan.outside,
      notes,
    };
  }

  /** Asks before overwriting files changed outside Garuda; no approver (nobody to ask) is a no. */
  async #overwrite(plan: FilesPlan, point: RewindPoint): Promise<boolean> {
    const approver = this.#d.approver;
    if (!approver) return false;
    const answer = await approver.ask(
      {
        tool: "rewind",
        title:
          `Rewind: ${plan.outside.length === 1 ? "a file" : `${plan.outside.length} files`} ` +
          `changed outside Garuda`,
        preview: limitLines(plan.outside).join("\n"),
        question:
          `These files changed outside Garuda since its last turn. Put them back to how ` +
          `they were before "${firstLine(point.text)}" anyway?`,
        choices: ["once", "deny"],
        labels: { once: "Overwrite them", session: "Overwrite them", deny: "Leave them as they are" },
        hidden: false,
      },
      this.#d.signal,
    );
    return answer === "once" || answer === "session";
  }

  async #conversation(point: RewindPoint, index: number, dryRun: boolean): Promise<ConversationRewind> {
    const file = this.#d.conversation.journal?.file;
    if (file === undefined)
      return { rewound: false, messagesDropped: 0, error: "This session has no session file to rewind." };
    const before = this.#d.conversation.messages.length;
    if (dryRun) {
      const { records } = await readSessionLater(file);
      const after = lengthAfter(records, point.messageId);
      return { rewound: false, messagesDropped: Math.max(0, before - after) };
    }
    this.#d.conversation.record({ type: "rewind", to: point.messageId });
    // Read back as a resume reads it: what the next request holds is what a resume would.
    this.#d.conversation.replaceMessages((await readSessionLater(file)).messages);
    this.#points.splice(index);
    return { rewound: true, messagesDropped: Math.max(0, before - this.#d.conversation.messages.length) };
  }

  #noteForModel(point: RewindPoint, result: RewindResult): void {
    const files = result.files;
    if (files && files.filesChanged.length > 0 && !result.conversation)
      this.#d.notes.push(
        `The user put the project's files back to how they were before their message ` +
          `"${firstLine(point.text)}" (${files.filesChanged.join(", ")}). Read those ` +
          `files again before relying on what you saw of them.`,
      );
    if (result.conversation?.rewound && !files)
      this.#d.notes.push(
        "The user rewound the conversation to an earlier message; the files were not " +
          "put back, so they may hold changes from the part that was dropped. Read files " +
          "again before relying on them.",
      );
  }
}

/** The length of the conversation the records would give after a rewind to `messageId`. */
function lengthAfter(records: readonly SessionRecord[], messageId: string): number {
  return rebuildMessages(withoutRewound([...records, { t: "", type: "rewind", to: messageId }])).length;
}

/** A rewind that cannot be done as asked (an unknown message id, a turn running). */
export class RewindError extends Error {}
