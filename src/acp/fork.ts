// session/fork (unstable in ACP, advertised as sessionCapabilities.fork): a new session with the
// conversation of another one up to now, or up to and with the message AIR's fork point names
// (`_meta.jetbrains.air.fork {version: 1, messageId}`: airMeta.ts), and its own session file
// (store/sessionFork.ts); both go on independently and both are in session/list. A session
// belongs to its project: the fork of a session of another project is refused as load and resume
// refuse it (history.ts). A session whose prompt runs is not forked (its last turn is half
// written), nor one another Garuda is writing (its lock). The fork starts as a resumed session
// does, with nothing replayed: the editor already shows the conversation it forked.
import * as acp from "@agentclientprotocol/sdk";
import { messageOf } from "../errors/caught.ts";
import { forkPoint } from "./airMeta.ts";
import type { ClaimedSession } from "../store/sessionCatalog.ts";
import type { SessionLock } from "../store/sessionLock.ts";
import {
  checkedCwd,
  checkedId,
  claimInProject,
  type HistoryHost,
  lastMode,
  type LiveSession,
  wrongFolder,
} from "./history.ts";

export const FORK_METHOD = "session/fork";

/** session/fork's params as Garuda reads them (the SDK's stable schema, which the server uses, has no fork). */
export interface ForkRequest {
  sessionId: string;
  cwd: string;
  mcpServers: acp.McpServer[];
  /** The message the fork keeps last (AIR's fork point, airMeta.ts); default: the whole conversation. */
  upTo?: string;
}

/** The answer: the new session's id, and what session/new answers. */
export type ForkResponse = acp.LoadSessionResponse & { sessionId: string };

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const isPairs = (value: unknown) =>
  Array.isArray(value) &&
  value.every((pair) => isRecord(pair) && typeof pair.name === "string" && typeof pair.value === "string");

/** An MCP server as ACP's McpServer has it: stdio (command, args, env) or http/sse (url, headers). */
function isMcpServer(value: unknown): boolean {
  if (!isRecord(value) || typeof value.name !== "string") return false;
  if (value.type === "http" || value.type === "sse") return typeof value.url === "string" && isPairs(value.headers);
  return (
    (value.type === undefined || value.type === "stdio") &&
    typeof value.command === "string" &&
    Array.isArray(value.args) &&
    value.args.every((arg) => typeof arg === "string") &&
    isPairs(value.env)
  );
}

/** Checks session/fork's params; anything else is the editor's invalid-params error. */
export function parseFork(params: unknown): ForkRequest {
  const invalid = (why: string) => acp.RequestError.invalidParams(undefined, `session/fork: ${why}`);
  if (!isRecord(params)) throw invalid("the request needs its params");
  if (typeof params.sessionId !== "string") throw invalid("the request needs a sessionId");
  if (typeof params.cwd !== "string") throw invalid("the request needs a cwd");
  const servers = params.mcpServers ?? [];
  if (!Array.isArray(servers) || !servers.every(isMcpServer))
    throw invalid("mcpServers must be a list of MCP servers as session/new takes them");
  const upTo = forkPoint(params._meta);
  return {
    sessionId: params.sessionId,
    cwd: params.cwd,
    mcpServers: servers as acp.McpServer[],
    ...(upTo !== undefined && { upTo }),
  };
}

const busyHere = (id: string) =>
  acp.RequestError.invalidRequest(
    { sessionId: id },
    "a prompt is running in this session; fork it when the prompt has ended",
  );

/** The parent's file and what it holds now, read under its lock (this process's runtime holds a live one's). */
async function parentOf(
  host: HistoryHost,
  id: string,
  cwd: string,
  live: LiveSession | undefined,
): Promise<{ file: string; data: ClaimedSession["data"]; lock?: SessionLock }> {
  const { readSession } = await import("../store/sessionFile.ts");
  if (live) {
    if (live.runtime.root !== cwd) throw wrongFolder(id, cwd, live.runtime.root);
    if (live.busy) throw busyHere(id);
    const file = live.runtime.session?.file;
    if (!file)
      throw acp.RequestError.invalidRequest(
        { sessionId: id },
        "this session has no conversation yet (no prompt was sent), so there is nothing " +
          "to fork; start a new session instead",
      );
    return { file, data: readSession(file) };
  }
  const claimed = await claimInProject(
    host,
    id,
    cwd,
    "its last turn may be half written. Fork it there (/fork in the chat), or close it there first.",
  );
  return { file: claimed.file, data: claimed.data, lock: claimed.lock };
}

export async function forkSession(host: HistoryHost, params: ForkRequest): Promise<ForkResponse> {
  const id = await checkedId(params.sessionId);
  const cwd = checkedCwd(params.cwd);
  host.scope.addProject(cwd);
  const [{ forkSession: writeFork, UnknownMessageError }, { removeSession }] = await Promise.all([
    import("../store/sessionFork.ts"),
    import("../store/sessionCatalog.ts"),
  ]);
  const parent = await parentOf(host, id, cwd, host.live(id));
  let forked: ClaimedSession;
  try {
    forked = writeFork({
      parentFile: parent.file,
      parentId: id,
      data: parent.data,
      ...(params.upTo !== undefined && { upTo: params.upTo }),
    });
  } catch (error) {
    if (error instanceof UnknownMessageError)
      throw acp.RequestError.invalidParams(
        { sessionId: id, messageId: error.messageId.slice(0, 100) },
        `session ${id} has no message with the id "${error.messageId.slice(0, 100)}" to ` +
          `fork at; the ids are the messageId of its chunks`,
      );
    throw new acp.RequestError(-32603, `session ${id} could not be forked: ${messageOf(error)}`);
  } finally {
    parent.lock?.release();
  }
  const mode = lastMode(forked);
  let session: LiveSession;
  try {
    session = await host.start({
      id: forked.id,
      cwd,
      mcpServers: params.mcpServers,
      resume: forked,
      ...(mode && { mode }),
    });
  } catch (error) {
    // A fork that cannot start is not left in the history.
    removeSession(forked);
    forked.lock.release();
    throw error;
  }
  host.started(session);
  return { sessionId: forked.id, ...host.answer(session) };
}
