// The editor's history: session/load (the conversation replayed, then continued), session/resume
// (continued, nothing replayed), session/list (every session file, newest first, in pages),
// session/close and session/delete. The session files are the one record for every front end,
// so a conversation started in the terminal or by `garuda run` opens in the editor, and one
// started in the editor continues with `garuda --resume <id>`. An id is checked before a path is
// made of it; a session belongs to its project root; a session another Garuda is writing is
// refused (its lock), never written by two.
import { realpathSync } from "node:fs";
import { dirname, isAbsolute } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import type { Mode } from "../core-types/mode.ts";
import { messageOf } from "../errors/caught.ts";
import type { Runtime } from "../runtime/runtime.ts";
import type { ClaimedSession } from "../store/sessionCatalog.ts";
import { isFolder } from "../files/entryKind.ts";
import type { HistoryScope } from "./historyScope.ts";

/** Sessions per page of session/list. */
const LIST_PAGE = 50;

/** A session this process serves, as the history needs it. */
export interface LiveSession {
  readonly id: string;
  readonly runtime: Runtime;
  /** A prompt runs. */
  readonly busy: boolean;
  /** Sends these updates now (before the answer to the request that asked for them). */
  replay(updates: acp.SessionUpdate[]): Promise<void>;
}

export interface StartRequest {
  id: string;
  cwd: string;
  mcpServers: readonly acp.McpServer[];
  resume: ClaimedSession & { damageShown?: boolean };
  mode?: Mode;
}

/** What the history handlers are given (sessions.ts, historyHost). */
export interface HistoryHost {
  /** ~/.garuda/sessions. */
  sessionsDir: string;
  /** The connection's projects and listed sessions: what it may delete (historyScope.ts). */
  scope: HistoryScope;
  live(id: string): LiveSession | undefined;
  /** Builds and registers a session that continues `resume` (the runtime then owns its lock). */
  start(request: StartRequest): Promise<LiveSession>;
  /** After the answer to load or resume: what the editor gets for a new session (the / menu). */
  started(session: LiveSession): void;
  /** Ends a session as session/cancel does and frees it. */
  close(id: string): Promise<void>;
  /** The answer to session/new, load and resume: the modes (and what else a session offers). */
  answer(session: LiveSession): acp.LoadSessionResponse;
  /** What the editor's initialize said it takes (a replay shows compactions as entries for one that takes them). */
  features?: { compaction: boolean };
}

function realPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

export async function checkedId(id: string): Promise<string> {
  const { isSessionId } = await import("../store/sessionFile.ts");
  if (!isSessionId(id))
    throw acp.RequestError.invalidParams(
      { sessionId: id },
      `"${id.slice(0, 100)}" is not a Garuda session id (they look like ` +
        `20260102-150405-1a2b3c4d); session/list gives them`,
    );
  return id;
}

export function checkedCwd(cwd: string): string {
  if (!isAbsolute(cwd) || !isFolder(cwd))
    throw acp.RequestError.invalidParams({ cwd }, `cwd must be an absolute path to an existing folder, not "${cwd}"`);
  return realPath(cwd);
}

export function wrongFolder(id: string, cwd: string, root: string | undefined): acp.RequestError {
  const where = root ?? "another project";
  return acp.RequestError.invalidParams(
    { sessionId: id, cwd, root: root ?? null },
    `session ${id} belongs to the project ${where}, not to ${cwd}: a session ` +
      `continues in its own project folder. Open ${where} to continue it, or start a ` +
      `new session here.`,
  );
}

/** The refusal of a delete of a session of a project this connection does not work in. */
function notThisProject(id: string, root: string | undefined, scope: HistoryScope): acp.RequestError {
  const where = root ?? "another project";
  const here = scope.projects.length > 0 ? scope.projects.join(", ") : "no project yet";
  return acp.RequestError.invalidParams(
    { sessionId: id, root: root ?? null },
    `session ${id} belongs to the project ${where}, not to one this editor works in ` +
      `(${here}), so it is not deleted. Open ${where} and delete it there.`,
  );
}

/** The mode a session last ran in. */
export function lastMode(claimed: ClaimedSession): Mode | undefined {
  let mode: Mode | undefined;
  for (const record of claimed.data.records)
    if (record.type === "start" || record.type === "resume" || record.type === "mode") mode = record.mode;
  return mode;
}

/**
 * Claims session `id` of the project at `cwd`, no editor of this process having it open: its file
 * in that project's folder (one of another project is refused before it is locked), locked, then
 * read. `busy`: what the refusal says when another Garuda has it open.
 */
export async function claimInProject(
  host: HistoryHost,
  id: string,
  cwd: string,
  busy: string,
): Promise<ClaimedSession> {
  const [{ findSessionFile, claimSession, sessionRoot, summarizeSession }, { sessionFolder }, { SessionBusyError }] =
    await Promise.all([
      import("../store/sessionCatalog.ts"),
      import("../store/sessionFile.ts"),
      import("../store/sessionLock.ts"),
    ]);
  const folder = sessionFolder(host.sessionsDir, cwd);
  const file = findSessionFile(host.sessionsDir, id, folder);
  if (!file) throw acp.RequestError.sessionNotFound(id);
  if (dirname(file) !== folder) throw wrongFolder(id, cwd, summarizeSession(file)?.root);
  let claimed: ClaimedSession;
  try {
    claimed = claimSession(file);
  } catch (error) {
    if (error instanceof SessionBusyError)
      throw new acp.RequestError(
        -32603,
        `session ${id} is open in another Garuda now (a terminal chat, \`garuda run\` ` +
          `or another editor window), and ${busy}`,
        { sessionId: id },
      );
    throw new acp.RequestError(-32603, `session ${id} cannot be read: ${messageOf(error)}`);
  }
  const root = sessionRoot(claimed.data);
  if (root !== undefined && root !== cwd) {
    claimed.lock.release();
    throw wrongFolder(id, cwd, root);
  }
  return claimed;
}

/**
 * Claims the session `id` of the project at `cwd` (locked, then read) and starts it; with
 * `replay`, sends its conversation before the answer. A session this process already serves is
 * answered as it is (replayed again from its file).
 */
async function open(
  host: HistoryHost,
  params: { sessionId: string; cwd: string; mcpServers?: acp.McpServer[] | null },
  replay: boolean,
): Promise<acp.LoadSessionResponse> {
  const id = await checkedId(params.sessionId);
  const cwd = checkedCwd(params.cwd);
  host.scope.addProject(cwd);
  const [{ readSession }, { readHistory }, { replayUpdates }] = await Promise.all([
    import("../store/sessionFile.ts"),
    import("../store/sessionHistory.ts"),
    import("./replay.ts"),
  ]);

  const live = host.live(id);
  if (live) {
    if (live.runtime.root !== cwd) throw wrongFolder(id, cwd, live.runtime.root);
    if (replay) {
      if (live.busy)
        throw acp.RequestError.invalidRequest(
          { sessionId: id },
          "a prompt is running in this session; load it again when the prompt has ended",
        );
      const file = live.runtime.session?.file;
      if (file) {
        const data = readSession(file);
        await live.replay(replayUpdates(readHistory(data.records), live.runtime.root, data.skipped, host.features));
      }
    }
    return host.answer(live);
  }

  const claimed = await claimInProject(
    host,
    id,
    cwd,
    "two must not write one session. Close it there first, or start a new session.",
  );
  const updates = replay
    ? replayUpdates(readHistory(claimed.data.records), cwd, claimed.data.skipped, host.features)
    : [];
  const mode = lastMode(claimed);
  let session: LiveSession;
  try {
    session = await host.start({
      id,
      cwd,
      mcpServers: params.mcpServers ?? [],
      resume: { ...claimed, damageShown: replay },
      ...(mode && { mode }),
    });
  } catch (error) {
    claimed.lock.release();
    throw error;
  }
  if (replay) await session.replay(updates);
  host.started(session);
  return host.answer(session);
}

export function loadSession(host: HistoryHost, params: acp.LoadSessionRequest): Promise<acp.LoadSessionResponse> {
  return open(host, params, true);
}

export function resumeSession(host: HistoryHost, params: acp.ResumeSessionRequest): Promise<acp.ResumeSessionResponse> {
  return open(host, params, false);
}

interface Cursor {
  updatedMs: number;
  id: string;
}

const encodeCursor = (cursor: Cursor) =>
  Buffer.from(JSON.stringify({ u: cursor.updatedMs, i: cursor.id })).toString("base64url");

function decodeCursor(text: string): Cursor {
  const bad = () =>
    acp.RequestError.invalidParams(
      { cursor: text.slice(0, 200) },
      "this cursor is not one Garuda gave: pass the nextCursor of the last " +
        "session/list answer, or list again without a cursor",
    );
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(text, "base64url").toString("utf8"));
  } catch {
    throw bad();
  }
  const { u, i } = (value ?? {}) as { u?: unknown; i?: unknown };
  if (typeof u !== "number" || !Number.isFinite(u) || typeof i !== "string") throw bad();
  return { updatedMs: u, id: i };
}

/** Whether a session sorts after the cursor (newest first, then the larger id first). */
const after = (session: { updatedMs: number; id: string }, cursor: Cursor) =>
  session.updatedMs < cursor.updatedMs || (session.updatedMs === cursor.updatedMs && session.id < cursor.id);

export async function listSessions(
  host: HistoryHost,
  params: acp.ListSessionsRequest,
): Promise<acp.ListSessionsResponse> {
  const cwd = params.cwd ?? undefined;
  if (cwd !== undefined && !isAbsolute(cwd))
    throw acp.RequestError.invalidParams({ cwd }, `cwd must be an absolute path, not "${cwd}"`);
  const cursor = params.cursor ? decodeCursor(params.cursor) : undefined;
  const { listSessionsIndexed } = await import("../store/sessionIndex.ts");
  const root = cwd === undefined ? undefined : realPath(cwd);
  const all = listSessionsIndexed({ sessionsDir: host.sessionsDir, ...(root !== undefined && { root }) });
  const rest = cursor ? all.filter((session) => after(session, cursor)) : all;
  const page = rest.slice(0, LIST_PAGE);
  // What the editor was shown is what it may delete (historyScope.ts).
  if (root !== undefined) host.scope.addProject(root);
  else host.scope.addShown(page.map((session) => session.id));
  const last = page.at(-1);
  return {
    sessions: page.map((session) => ({
      sessionId: session.id,
      cwd: session.root,
      title: session.title ?? null,
      updatedAt: new Date(session.updatedMs).toISOString(),
    })),
    ...(rest.length > page.length && last && { nextCursor: encodeCursor(last) }),
  };
}

export async function closeSession(
  host: HistoryHost,
  params: acp.CloseSessionRequest,
): Promise<acp.CloseSessionResponse> {
  if (!host.live(params.sessionId)) throw acp.RequestError.sessionNotFound(params.sessionId);
  await host.close(params.sessionId);
  return {};
}

export async function deleteSession(
  host: HistoryHost,
  params: acp.DeleteSessionRequest,
): Promise<acp.DeleteSessionResponse> {
  const id = await checkedId(params.sessionId);
  const [{ findSessionFile, removeSession, summarizeSession }, { lockSession, SessionBusyError }, { sessionFolder }] =
    await Promise.all([
      import("../store/sessionCatalog.ts"),
      import("../store/sessionLock.ts"),
      import("../store/sessionFile.ts"),
    ]);
  const folderOf = (root: string) => sessionFolder(host.sessionsDir, root);
  // A session of a project this connection does not work in is refused before anything is
  // closed or locked (a session belongs to its project, as for load and resume).
  const live = host.live(id);
  if (live && !host.scope.allows(id, folderOf(live.runtime.root), folderOf))
    throw notThisProject(id, live.runtime.root, host.scope);
  const file = findSessionFile(host.sessionsDir, id);
  if (file && !host.scope.allows(id, dirname(file), folderOf))
    throw notThisProject(id, summarizeSession(file)?.root, host.scope);
  // A session this process serves is closed first (its command stops, its lock goes).
  if (live) await host.close(id);
  if (!file) throw acp.RequestError.sessionNotFound(id);
  let lock: ReturnType<typeof lockSession>;
  try {
    lock = lockSession(file);
  } catch (error) {
    if (error instanceof SessionBusyError)
      throw new acp.RequestError(
        -32603,
        `session ${id} is open in another Garuda now (a terminal chat, \`garuda run\` ` +
          `or another editor window), so it is not deleted. Close it there first.`,
        { sessionId: id },
      );
    throw new acp.RequestError(-32603, `session ${id} cannot be deleted: ${messageOf(error)}`);
  }
  try {
    removeSession({ file, lock });
  } catch (error) {
    throw new acp.RequestError(-32603, `session ${id} cannot be deleted: ${messageOf(error)}`);
  } finally {
    lock.release();
  }
  return {};
}
