// The sessions one connection serves: each one's runtime prepared (by the caller's prepare(),
// the configuration read again for every session) with its SessionLink, then the Session built
// with both; found by id, closed, and all stopped at shutdown. session/new is answered once the
// configuration is read and checked (plan()), and its runtime is built after the answer: a
// request for the session meanwhile waits for it, and a failure to build it is every such
// request's error. The history's handlers (history.ts) start and close sessions through
// historyHost(); they see a new session once its runtime is built or has failed (settled()).
import { isAbsolute } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import type { PlannedRuntime, ProjectTrustQuestion } from "../compose/prepare.ts";
import type { Approver } from "../permission/types.ts";
import type { Asker } from "../core-types/question.ts";
import type { Mode } from "../core-types/mode.ts";
import type { Runtime } from "../runtime/runtime.ts";
import type { ClaimedSession } from "../store/sessionCatalog.ts";
import { oneLine } from "../text/visible.ts";
import { untilAborted } from "../untilAborted.ts";
import type { EditorBuffers } from "../tools/editorBuffers.ts";
import { wantsForms } from "./asker.ts";
import { acpBuffers } from "./buffers.ts";
import { configOptions, sessionModes } from "./configOptions.ts";
import { setupError } from "./errors.ts";
import type { HistoryHost, StartRequest } from "./history.ts";
import { HistoryScope } from "./historyScope.ts";
import { wantsNotices } from "./notices.ts";
import { MemoryTrim, type MemoryTrimOptions } from "./memoryTrim.ts";
import { Session } from "./session.ts";
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
  /** The mode to start in (a continued session's last one; a session prepared again after a yes keeps the editor's). Default: build. */
  mode?: Mode;
  /** The editor's unsaved buffers, when it offers fs/read_text_file. */
  buffers?: EditorBuffers;
  /** The first-run questions (prepareRuntime's projectTrust): answered at the first prompt (projectTrust.ts). */
  projectTrust: (question: ProjectTrustQuestion) => Promise<boolean>;
  /** The editor's MCP servers (session/new mcpServers), as given: each is a consent at the first prompt. */
  mcpServers: acp.McpServer[];
}

/** A new session whose configuration is read and checked: what the editor is told, and its runtime, built when asked. */
export type PlannedSession = PlannedRuntime;

export interface SessionsOptions {
  /** Builds one session's Runtime; throws SetupRequiredError or ConfigError with a message for the user. */
  prepare(request: PrepareRequest): Promise<Runtime>;
  /**
   * prepare() in two steps, for session/new: the checks and the session's view (throws as
   * prepare() does), then the runtime. Default: prepare(), the view being the runtime.
   */
  plan?(request: PrepareRequest): Promise<PlannedSession>;
  /** Native Windows: the message that says to use WSL; every session/new fails with it. */
  unsupported?: string;
  settleMs: number;
  log: (text: string) => void;
  /** ~/.garuda/sessions: with it, the editor's history (load, list, resume, close, delete). */
  sessionsDir?: string;
  /** When memory is given back while no turn runs (memoryTrim.ts); default: soon after a close, 30 s after a turn. */
  memoryTrim?: Partial<Omit<MemoryTrimOptions, "busy">>;
}

/** After a turn, how long the agent must be quiet before its memory is trimmed. */
const TRIM_IDLE_MS = 30_000;

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

/** A new session whose runtime is being built (or failed to be). */
interface PendingSession {
  ready: Promise<Session>;
  /** Aborted by a session/cancel meanwhile: the prompts waiting for the runtime end as cancelled. */
  cancel: AbortController;
}

export class Sessions {
  readonly #open = new Map<string, Session>();
  /** New sessions answered whose runtime is being built, or failed to be (until closed). */
  readonly #pending = new Map<string, PendingSession>();
  /** Runtimes being prepared, so shutdown can close them when they arrive. */
  readonly #starting = new Set<Promise<Runtime>>();
  /** session/new's first steps under way (their runtime is not built once a shutdown has begun). */
  readonly #planning = new Set<Promise<unknown>>();
  #closing = false;
  #shuttingDown: Promise<void> | undefined;
  /** What the client said it can do (initialize): fs.readTextFile lets the core read unsaved buffers. */
  #capabilities: acp.ClientCapabilities | undefined;
  /** What the editor's initialize said it takes. */
  #features: ClientFeatures = { terminalOutput: false, notices: false };
  readonly #trim: MemoryTrim;
  /** The projects this connection works in and the sessions it listed: what session/delete may remove. */
  readonly #scope = new HistoryScope();

  constructor(
    private readonly client: acp.AgentContext,
    private readonly options: SessionsOptions,
  ) {
    this.#trim = new MemoryTrim({
      idleMs: TRIM_IDLE_MS,
      closedMs: 0,
      ...options.memoryTrim,
      busy: () => [...this.#open.values()].some((open) => open.busy),
    });
  }

  /** initialize: what the editor can do, for every session started after it. */
  initialized(capabilities: acp.ClientCapabilities | undefined): void {
    this.#capabilities = capabilities;
    this.#features = { terminalOutput: wantsTerminalOutput(capabilities), notices: wantsNotices(capabilities) };
  }

  /**
   * The session `id` once its runtime is built; the editor's error for an unknown one, or the
   * reason its runtime could not be built.
   */
  async get(id: string): Promise<Session> {
    const found = this.#open.get(id);
    if (found) return found;
    const pending = this.#pending.get(id);
    if (!pending) throw acp.RequestError.sessionNotFound(id);
    return pending.ready;
  }

  /** session/prompt. One sent while the session's runtime is built waits for it; a session/cancel meanwhile ends it as cancelled. */
  async prompt(
    id: string,
    prompt: acp.ContentBlock[],
    signal: AbortSignal,
    meta?: unknown,
  ): Promise<acp.PromptResponse> {
    const pending = this.#open.has(id) ? undefined : this.#pending.get(id);
    const target = pending
      ? await untilAborted<Session | undefined>(
          pending.ready,
          AbortSignal.any([pending.cancel.signal, signal]),
          () => undefined,
        )
      : await this.get(id);
    if (!target) return { stopReason: "cancelled" };
    return target.prompt(prompt, signal, meta);
  }

  /** session/cancel: a notification, so an unknown id is no error. */
  cancel(id: string): void {
    const pending = this.#pending.get(id);
    if (pending) {
      pending.cancel.abort();
      pending.cancel = new AbortController();
    }
    this.#open.get(id)?.cancel();
  }

  /** Settles once session `id` is no longer being built (the history's handlers then see it, or its failure). */
  async settled(id: string): Promise<void> {
    await this.#pending.get(id)?.ready.catch(() => {});
  }

  /** session/close of a new session whose runtime could not be built: forgets it. False when there was none. */
  forgetFailed(id: string): boolean {
    return !this.#open.has(id) && this.#pending.delete(id);
  }

  /** session/new: answered from the session's view; its runtime is built after the answer. */
  async create(params: acp.NewSessionRequest): Promise<acp.NewSessionResponse> {
    const cwd = params.cwd;
    if (!isAbsolute(cwd) || !isFolder(cwd))
      throw acp.RequestError.invalidParams(
        { cwd: oneLine(cwd, 500) },
        `cwd must be an absolute path to an existing folder, not "${oneLine(cwd, 500)}"`,
      );
    if (this.#closing) throw shuttingDownError();
    if (this.options.unsupported) throw new acp.RequestError(-32603, this.options.unsupported);
    this.#scope.addProject(cwd);
    // The session's id is its file's, so the history and `garuda --resume <id>` know it.
    const { newSessionId } = await import("../store/sessionFile.ts");
    const request = this.#request({
      id: newSessionId(),
      cwd,
      mcpServers: params.mcpServers,
      additionalDirectories: params.additionalDirectories ?? [],
    });
    const plan =
      this.options.plan ??
      (async (prepared: PrepareRequest) => {
        const runtime = await this.options.prepare(prepared);
        return { view: runtime, build: async () => runtime };
      });
    let planned: PlannedSession;
    const planning = plan(request.base);
    this.#planning.add(planning);
    try {
      planned = await planning;
    } catch (error) {
      throw await setupError(error);
    } finally {
      this.#planning.delete(planning);
    }
    if (this.#closing) throw shuttingDownError();
    const view = planned.view;
    const answer = {
      sessionId: request.id,
      modes: sessionModes(view),
      configOptions: configOptions(view, (text) => this.options.log(text)),
    };
    // Built once the answer is on its way (the editor must know the session before its updates);
    // not at all when a shutdown came first.
    const building = new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      if (this.#closing) throw shuttingDownError();
      return planned.build();
    });
    const ready = this.#attach(building, request).then(
      async (created) => {
        if (!this.#pending.delete(request.id)) {
          await created.runtime.close();
          throw shuttingDownError();
        }
        this.#open.set(request.id, created);
        this.#started(created);
        return created;
      },
      (error: unknown) => {
        if (this.#closing) throw shuttingDownError();
        // The editor shows this at each request for the session: say that it is over, and what to do.
        const message = error instanceof Error ? error.message : String(error);
        this.options.log(`garuda acp: session ${request.id} could not start: ${message}`);
        const code = error instanceof acp.RequestError ? error.code : -32603;
        throw new acp.RequestError(
          code,
          `This session could not start: ${message.replace(/\.?$/, ".")} Close it and open a new session.`,
          error instanceof acp.RequestError ? error.data : undefined,
        );
      },
    );
    ready.catch(() => {});
    this.#pending.set(request.id, { ready, cancel: new AbortController() });
    return answer;
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
    };
  }

  /** Stops every turn, closes every runtime (and those still being prepared or built); once. */
  shutdown(): Promise<void> {
    this.#shuttingDown ??= (async () => {
      this.#closing = true;
      this.#trim.stop();
      for (const open of this.#open.values()) open.end();
      this.#pending.clear();
      await Promise.allSettled([...this.#planning]);
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
    const link = new SessionLink(request.id, this.client, { forms: wantsForms(this.#capabilities) });
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
      turns: this.#trim,
    });
  }

  /** After the response is written: the editor must know the session before its updates. */
  #started(target: Session): void {
    setImmediate(() => {
      if (this.#open.has(target.id)) target.announceStart();
    });
  }

  async #close(id: string): Promise<void> {
    await this.settled(id);
    const target = this.#open.get(id);
    if (!target) return;
    this.#open.delete(id);
    await target.close();
    if (!this.#closing) this.#trim.sessionClosed();
  }
}
