// The ACP agent (protocol version 1, stable methods and the steering extension): initialize,
// authenticate, logout, session/new, session/prompt, session/cancel, session/set_mode,
// session/set_config_option, `_session/steering` (turnInput.ts), `_session/rewind_points` and
// `_session/rewind` (rewind.ts), and the history (history.ts: session/load, list, resume, close,
// delete; fork.ts: session/fork). Each handler hands its
// request on: the sessions to sessions.ts, one session's requests to its Session (session.ts),
// the stream and what is refused before the SDK reads it to editorStream.ts. The SDK checks and
// answers initialize; the core loads at the first session/new (options.prepare). Nothing here
// writes stdout or starts a process: the SDK writes the protocol to `output`.
import * as acp from "@agentclientprotocol/sdk";
import type { Runtime } from "../runtime/runtime.ts";
import { editorStream } from "./editorStream.ts";
import { shownError } from "./errors.ts";
import { FORK_METHOD, forkSession, parseFork } from "./fork.ts";
import { closeSession, deleteSession, listSessions, loadSession, resumeSession } from "./history.ts";
import { initializeResponse, withSentSubagents } from "./initialize.ts";
import { MAX_EDITOR_MESSAGE_BYTES } from "./messageBound.ts";
import { type PrepareRequest, Sessions, type SessionsOptions } from "./sessions.ts";
import { parseSteering, STEERING_METHOD, steer } from "./turnInput.ts";
import {
  parsePointsRequest,
  parseRewindRequest,
  REWIND_METHOD,
  REWIND_POINTS_METHOD,
  rewind,
  rewindPoints,
} from "./rewind.ts";

export type { PrepareRequest };

/** After a stop, how long running calls may take to report (more than the executor's 2 s kill grace). */
const SETTLE_MS = 3_000;

export interface AcpServerOptions {
  /** Builds one session's Runtime; throws SetupRequiredError or ConfigError with a message for the user. */
  prepare(request: PrepareRequest): Promise<Runtime>;
  /** How an editor with the older Terminal Auth form runs the setup: this binary and `acp setup`. */
  setup: { command: string; args: string[] };
  /** ACP `logout`: forgets the model's key (config/forgetKeys.ts); throws a ConfigError it cannot. */
  logout?(): Promise<void>;
  platform?: NodeJS.Platform;
  /** Native Windows: the message that says to use WSL; every session/new fails with it. */
  unsupported?: string;
  settleMs?: number;
  /** The longest message read (default: the SDK's 32 MiB); a longer line is refused, not fatal. */
  maxMessageBytes?: number;
  /** The longest message sent (default MAX_EDITOR_MESSAGE_BYTES); a longer one goes out cut. */
  maxSentBytes?: number;
  /** Diagnostics for stderr (the editor's log). */
  log?: (text: string) => void;
  /** ~/.garuda/sessions: with it, the editor's history (load, list, resume, close, delete). */
  sessionsDir?: string;
  /** Told when turns begin and end and sessions close (`garuda acp` trims its memory when quiet). */
  activity?: SessionsOptions["activity"];
}

export interface AcpServer {
  /** Resolves when the connection ends (stdin closed, or the output failed). */
  readonly closed: Promise<void>;
  /** Stops every turn, closes every runtime (each executor kills its processes), ends the connection. */
  shutdown(): Promise<void>;
}

export interface AcpStreams {
  input: ReadableStream<Uint8Array>;
  output: WritableStream<Uint8Array>;
}

export function serveAcp(streams: AcpStreams, options: AcpServerOptions): AcpServer {
  const log = options.log ?? ((text: string) => console.error(text));
  /** The last initialize's params as sent (the SDK drops the draft capabilities it does not know). */
  let sentInitialize: unknown;
  const editor = editorStream(streams, {
    maxMessageBytes: options.maxMessageBytes ?? acp.DEFAULT_MAX_MESSAGE_BYTES,
    maxSentBytes: options.maxSentBytes ?? MAX_EDITOR_MESSAGE_BYTES,
    log,
    onInitialize: (params) => {
      sentInitialize = params;
    },
  });

  // The handlers run only once the connection reads its input, when `sessions` (which speaks to
  // the editor through the connection's client) exists.
  const connection = acp
    .agent({ name: "garuda" })
    .onRequest(acp.methods.agent.initialize, ({ params }) => {
      const clientCapabilities = withSentSubagents(params.clientCapabilities, sentInitialize);
      sessions.initialized(clientCapabilities);
      return initializeResponse({ ...params, ...(clientCapabilities && { clientCapabilities }) }, options);
    })
    .onRequest(acp.methods.agent.authenticate, () => ({}))
    // Forgets the model's key; the next session/new answers auth required, with the sign-in.
    .onRequest(acp.methods.agent.logout, async () => {
      if (!options.logout) throw acp.RequestError.methodNotFound(acp.methods.agent.logout);
      try {
        await options.logout();
      } catch (error) {
        throw new acp.RequestError(-32603, shownError(error));
      }
      return {};
    })
    .onRequest(acp.methods.agent.session.new, ({ params }) => sessions.create(params))
    .onRequest(acp.methods.agent.session.load, ({ params }) => loadSession(sessions.historyHost(), params))
    .onRequest(acp.methods.agent.session.resume, ({ params }) => resumeSession(sessions.historyHost(), params))
    // session/fork is in the SDK's unstable schema only: its params are read by fork.ts.
    .onRequest(FORK_METHOD, parseFork, ({ params }) => forkSession(sessions.historyHost(), params))
    .onRequest(acp.methods.agent.session.list, ({ params }) => listSessions(sessions.historyHost(), params))
    .onRequest(acp.methods.agent.session.close, ({ params }) => closeSession(sessions.historyHost(), params))
    .onRequest(acp.methods.agent.session.delete, ({ params }) => deleteSession(sessions.historyHost(), params))
    .onRequest(acp.methods.agent.session.prompt, ({ params, signal }) =>
      sessions.prompt(params.sessionId, params.prompt, signal, params._meta),
    )
    .onNotification(acp.methods.agent.session.cancel, ({ params }) => sessions.cancel(params.sessionId))
    // A message for the running turn (turnInput.ts); the sessions of this connection only.
    .onRequest(STEERING_METHOD, parseSteering, async ({ params }) =>
      steer(await sessions.get(params.sessionId), params, log),
    )
    // Rewind points and rewinds (rewind.ts).
    .onRequest(REWIND_POINTS_METHOD, parsePointsRequest, ({ params }) =>
      rewindPoints(sessions.get(params.sessionId).runtime),
    )
    .onRequest(REWIND_METHOD, parseRewindRequest, ({ params }) => rewind(sessions.get(params.sessionId), params))
    .onRequest(acp.methods.agent.session.setMode, async ({ params }) => {
      await sessions.get(params.sessionId).setMode(params.modeId);
      return {};
    })
    .onRequest(acp.methods.agent.session.setConfigOption, ({ params }) =>
      sessions.get(params.sessionId).setConfigOption(params),
    )
    .connect(editor.stream);

  const sessions = new Sessions(connection.client, {
    prepare: options.prepare,
    ...(options.unsupported !== undefined && { unsupported: options.unsupported }),
    settleMs: options.settleMs ?? SETTLE_MS,
    log,
    ...(options.sessionsDir !== undefined && { sessionsDir: options.sessionsDir }),
    ...(options.activity && { activity: options.activity }),
  });

  let shuttingDown: Promise<void> | undefined;
  const shutdown = () => {
    shuttingDown ??= (async () => {
      await sessions.shutdown();
      connection.close();
      await editor.close();
    })();
    return shuttingDown;
  };

  return { closed: connection.closed, shutdown };
}
