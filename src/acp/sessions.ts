// The sessions one connection serves: each one's runtime prepared (by the caller's prepare(),
// the configuration read again for every session) with its SessionLink, then the Session built
// with both; found by id, closed, and all stopped at shutdown. session/new, load and resume each
// answer once the session's runtime is built: every setup error is their own error. The
// history's handlers (history.ts) start and close sessions through historyHost().
import { isAbsolute } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import type { ProjectTrustQuestion } from "../compose/prepare.ts";
import type { Approver } from "../permission/types.ts";
import type { Asker } from "../core-types/question.ts";
import type { Mode } from "../core-types/mode.ts";
import type { Runtime } from "../runtime/runtime.ts";
import type { ClaimedSession } from "../store/sessionCatalog.ts";
import { oneLine } from "../text/visible.ts";
import type { EditorBuffers } from "../tools/editorBuffers.ts";
import { wantsForms } from "./asker.ts";
import { acpBuffers } from "./buffers.ts";
import { setupError } from "./errors.ts";
import type { HistoryHost, StartRequest } from "./history.ts";
import { HistoryScope } from "./historyScope.ts";
import { wantsNotices } from "./notices.ts";
import { wantsCompaction } from "./compaction.ts";
import { Session } from "./session.ts";
import { wantsSubagents } from "./initialize.ts";
import { SessionLink } from "./sessionLink.ts";
import type { ClientFeatures } from "./sessionMapper.ts";
import { wantsTerminalOutput } from "./terminalOutput.ts";
import { isFolder } from "../files/entryKind.ts";

export interface PrepareRequest {
  /** The session's project folder: absolute, an existing folder. */
  cwd: string;
  /** The editor's other workspace folders (session/new additionalDirectories), as given: prepare checks them. */
  additionalDirectories: string[];
  approver: Approver;
  /** Who answers the model's questions (ask_user). */
  asker?: Asker;
  /** The session's id, which is its file's: new for session/new, the session's own for load and resume. */
  sessionId: string;
  /** session/load and session/resume: the session to continue, locked and read (the runtime then owns it). */
  resume?: ClaimedSession & { damageShown?: boolean };
  /**
   * The mode to start in (a continued session's last one; a session prepared again after a yes keeps the editor's).
   * Default: build.
   */
  mode?: Mode;
  /** The editor's unsaved buffers, when it offers fs/read_text_file. */
  buffers?: EditorBuffers;
  /** The first-run questions (prepareRuntime's projectTrust): answered at the first prompt (projectTrust.ts). */
  projectTrust: (question: ProjectTrustQuestion) => Promise<boolean>;
  /** The editor's MCP servers (session/new mcpServers), as given: each is a consent at the first prompt. */
  mcpServers: acp.McpServer[];
}

export interface SessionsOptions {
  /** Builds one session's Runtime; throws SetupRequiredError or ConfigError with a message for the user. */
  prepare(request: PrepareRequest): Promise<Runtime>;
  /** Native Windows: the message that says to use WSL; every session/new fails with it. */
  unsupported?: string;
  settleMs: number;
  log: (text: string) => void;
  /** ~/.garuda/sessions: with it, the editor's history (load, list, resume, close, delete). */
  sessionsDir?: string;
  /** Told when turns begin and end and sessions close (`garuda acp` trims its memory when quiet). */
  activity?: SessionActivity;
}

/** What the front end hears of the sessions' work (cli/process/memoryTrim.ts waits for a quiet agent). */
export interface SessionActivity {
  turnStarted(): void;
  turnEnded(): void;
  sessionClosed(): void;
}

const NO_ACTIVITY: SessionActivity = { turnStarted: () => {}, turnEnded: () => {}, sessionClosed: () => {} };

type StartSession = Omit<StartRequest, "resume"> & {
  additionalDirectories?: readonly string[];
  resume?: PrepareRequest["resume"];
};

const shuttingDownError = () => new acp.RequestError(-32603, "Garuda is shutting down.");

/** What prepare() is asked for one session, with the session's link to the editor. */
interface SessionRequest {
  id: string;
  link: SessionLink;
  base: PrepareRequest;
  features: ClientFeatures;
}

export class Sessions {
  readonly #open = new Map<string, Session>();
  /** Runtimes being prepared, so shutdown can close them when they arrive. */
  readonly #starting = new Set<Promise<Runtime>>();
  #closing = false;
  #shuttingDown: Promise<void> | undefined;
  /** What the client said it can do (initialize): fs.readTextFile lets the core read unsaved buffers. */
  #capabilities: acp.ClientCapabilities | undefined;
  /** What the editor's initialize said it takes. */
  #features: ClientFeatures = { terminalOutput: false, notices: false, compaction: false };
  readonly #activity: SessionActivity;
  /** The projects this connection works in and the sessions it listed: what session/delete may remove. */
  readonly #scope = new HistoryScope();

  constructor(
    private readonly client: acp.AgentContext,
    private readonly options: SessionsOptions,
  ) {
    this.#activity = options.activity ?? NO_ACTIVITY;
  }

  /** initialize: what the editor can do, for every session started after it. */
  initialized(capabilities: acp.ClientCapabilities | undefined): void {
    this.#capabilities = capabilities;
    this.#features = {
      terminalOutput: wantsTerminalOutput(capabilities),
      notices: wantsNotices(capabilities),
      compaction: wantsCompaction(capabilities),
    };
  }

  /** The session `id`; the editor's error for an unknown one. */
  get(id: string): Session {
    const found = this.#open.get(id);
    if (!found) throw acp.RequestError.sessionNotFound(id);
    return found;
  }

  /** session/prompt; `meta`: the request's `_meta` (AIR's file-change report request: turnChanges.ts). */
  prompt(id: string, prompt: acp.ContentBlock[], signal: AbortSignal, meta?: unknown): Promise<acp.PromptResponse> {
    return this.get(id).prompt(prompt, signal, meta);
  }

  /** session/cancel: a notification, so an unknown id is no error. */
  cancel(id: string): void {
    this.#open.get(id)?.cancel();
  }

  /** session/new: the session's runtime is built (every setup error is this request's), then it is answered. */
  async create(params: acp.NewSessionRequest): Promise<acp.NewSessionResponse> {
    const cwd = params.cwd;
    if (!isAbsolute(cwd) || !isFolder(cwd))
      throw acp.RequestError.invalidParams(
        { cwd: oneLine(cwd, 500) },
        `cwd must be an absolute path to an existing folder, not "${oneLine(cwd, 500)}"`,
      );
    this.#scope.addProject(cwd);
    // The session's id is its file's, so the history and `garuda --resume <id>` know it.
    const { newSessionId } = await import("../store/sessionFile.ts");
    const created = await this.#start({
      id: newSessionId(),
      cwd,
      mcpServers: params.mcpServers,
      additionalDirectories: params.additionalDirectories ?? [],
    });
    this.#started(created);
    return { sessionId: created.id, ...created.answer() };
  }

  /** What the history's handlers are given; without a sessions folder there is no history. */
  historyHost(): HistoryHost {
    const sessionsDir = this.options.sessionsDir;
    if (sessionsDir === undefined) throw acp.RequestError.methodNotFound("session history");
    return {
      sessionsDir,
      scope: this.#scope,
      live: (id) => this.#open.get(id),
      start: (request) => this.#start(request),
      started: (target) => this.#started(target as Session),
      close: (id) => this.#close(id),
      answer: (target) => (target as Session).answer(),
      features: this.#features,
    };
  }

  /** Stops every turn, closes every runtime (and those still being prepared); once. */
  shutdown(): Promise<void> {
    this.#shuttingDown ??= (async () => {
      this.#closing = true;
      for (const open of this.#open.values()) open.end();
      const late = [...this.#starting].map((preparing) =>
        preparing.then(
          (runtime) => runtime.close(),
          () => {},
        ),
      );
      const runtimes = [...this.#open.values()].map((open) => open.runtime.close());
      this.#open.clear();
      await Promise.allSettled([...runtimes, ...late]);
    })();
    return this.#shuttingDown;
  }

  /** Builds a session's runtime continuing `resume` (the history's), then the session with it, and serves it. */
  async #start(request: StartSession): Promise<Session> {
    if (this.#closing) throw shuttingDownError();
    if (this.options.unsupported) throw new acp.RequestError(-32603, this.options.unsupported);
    const prepared = this.#request(request);
    const created = await this.#attach(
      this.options.prepare({
        ...prepared.base,
        ...(request.resume && { resume: request.resume }),
        ...(request.mode && { mode: request.mode }),
      }),
      prepared,
    );
    this.#open.set(request.id, created);
    return created;
  }

  /** What prepare() is asked for a session, and its link to the editor. */
  #request(request: StartSession): SessionRequest {
    const link = new SessionLink(request.id, this.client, {
      forms: wantsForms(this.#capabilities),
      ...(wantsSubagents(this.#capabilities) && { subagents: { root: request.cwd } }),
    });
    const buffers = this.#capabilities?.fs?.readTextFile === true ? acpBuffers(request.id, this.client) : undefined;
    const base = {
      cwd: request.cwd,
      additionalDirectories: [...(request.additionalDirectories ?? [])],
      mcpServers: [...request.mcpServers],
      ...(buffers && { buffers }),
      approver: link.approver,
      asker: link.asker,
      projectTrust: link.trust.answer,
      sessionId: request.id,
    };
    return { id: request.id, link, base, features: this.#features };
  }

  /** The session, once `preparing` has its runtime; a failure is the editor's error (setupError). */
  async #attach(preparing: Promise<Runtime>, { id, link, base, features }: SessionRequest): Promise<Session> {
    // After a yes to the project's settings: the runtime is made again with them; it continues
    // the session file if one exists (the old runtime has let go of it).
    const prepareAgain = async (mode: Mode) => {
      const { claimSession, findSessionFile } = await import("../store/sessionCatalog.ts");
      const file = this.options.sessionsDir !== undefined ? findSessionFile(this.options.sessionsDir, id) : undefined;
      return this.options.prepare({ ...base, mode, ...(file !== undefined && { resume: claimSession(file) }) });
    };
    this.#starting.add(preparing);
    let runtime: Runtime;
    try {
      runtime = await preparing;
    } catch (error) {
      throw await setupError(error);
    } finally {
      this.#starting.delete(preparing);
    }
    if (this.#closing) {
      await runtime.close();
      throw shuttingDownError();
    }
    return new Session({
      link,
      runtime,
      prepareAgain,
      settleMs: this.options.settleMs,
      log: this.options.log,
      features,
      turns: this.#activity,
    });
  }

  /** After the response is written: the editor must know the session before its updates. */
  #started(target: Session): void {
    setImmediate(() => {
      if (this.#open.has(target.id)) target.announceStart();
    });
  }

  async #close(id: string): Promise<void> {
    const target = this.#open.get(id);
    if (!target) return;
    this.#open.delete(id);
    await target.close();
    if (!this.#closing) this.#activity.sessionClosed();
  }
}
