// What a Runtime is given (Runtime.create): every service of one session, so the Runtime finds
// nothing on its own. The composition root (src/compose/prepare.ts) fills it for the front ends;
// tests fill it with fakes.
import type { ModelChoices } from "../config/modelChoices.ts";
import type { ModelInfo } from "../model/catalog.ts";
import type { ModelClient, ModelRequest, WebSearchOptions } from "../model/types.ts";
import type { PermissionEngine } from "../permission/engine.ts";
import type { Approver } from "../permission/types.ts";
import type { Mode } from "../core-types/mode.ts";
import type { Executor, SandboxAvailability, SandboxSpec } from "../sandbox/types.ts";
import type { AuditSink } from "../store/auditEvents.ts";
import type { SessionStore } from "../store/sessionFile.ts";
import type { BufferDeps } from "../tools/editorBuffers.ts";
import type { BackgroundJobs } from "../tools/processTable.ts";
import type { PlanState } from "../tools/todo.ts";
import type { ToolHooks } from "../tools/toolHooks.ts";
import type { Tool } from "../tools/types.ts";
import type { WithheldPredicate } from "../tools/withheldPaths.ts";
import type { SubagentModel } from "./childModels.ts";
import type { Limits } from "./loop.ts";
import type { ResumeSource } from "./resume.ts";
import type { CommandProvider, Notice, TurnExtensions, UndoStore } from "./services.ts";

export interface RuntimeOptions {
  /** The project root; must exist. Its real path is used. */
  root: string;
  /** The editor's unsaved buffers for @-mentions, with the file tools' checks (tools/editorBuffers.ts). */
  buffers?: BufferDeps;
  /** The session's other project folders (an editor's additionalDirectories), real; named in the system prompt. */
  extraRoots?: readonly string[];
  /**
   * The paths the file tools never show (sensitive files, the team policy's denied paths), for a
   * front end that lists the project's files itself (the chat's @path completion).
   */
  withheld?: WithheldPredicate;
  home: string;
  model: { client: ModelClient; info: ModelInfo; thinking?: ModelRequest["thinking"]; webSearch?: WebSearchOptions };
  tools: readonly Tool[];
  engine: PermissionEngine;
  executor: Executor;
  /** Who answers permission questions; absent in headless runs (a question is then a deny). */
  approver?: Approver;
  mode: Mode;
  /** Lower limits from the team policy or settings; defaults: DEFAULT_LIMITS. */
  limits?: Partial<Limits>;
  hooks?: ToolHooks;
  audit?: AuditSink;
  undo?: UndoStore;
  /**
   * Where the session file goes (compose: createSessionStore on ~/.garuda/sessions), made with
   * the Runtime's own report of a failed write (a warning notice); false: no session file.
   */
  sessionStore: ((onWriteError: (error: Error) => void) => SessionStore) | false;
  /** The id of a new session's file (an editor names a session before its first prompt). Default: a new id. */
  sessionId?: string;
  /**
   * Continue a session (its messages, usage and mode): its file, which create() locks and reads,
   * or a session a front end already claimed (claimSession), which the runtime then owns. The
   * lock is held until close(); when another Garuda holds it, create() throws SessionBusyError.
   * `damageShown`: the front end has told the user which damaged lines were skipped.
   */
  resume?: string | ResumeSource;
  /** Notices from the wiring (ignored project settings …), shown at the first turn. */
  notices?: Notice[];
  commands?: CommandProvider;
  /** Extensions started at the first turn (MCP servers), whose tools join the session's. */
  extensions?: TurnExtensions;
  /** Why a mode may not be used (the team policy's allowedModes), or undefined. Default: every mode may. */
  modeRefusal?: (mode: Mode) => string | undefined;
  /** Whether commands have an OS sandbox (the system prompt, the notice). Default: the executor's. */
  sandboxAvailability?: SandboxAvailability;
  /** The sandbox commands run in, per mode. Default: the executor's own spec, the project read-only in plan mode. */
  sandboxFor?: (mode: Mode) => SandboxSpec | null;
  /**
   * Opens another model for a subagent that asks for one (a custom agent's `model`), under the
   * same rules as the session's: the team policy's allowed models, a provider and a key. Throws
   * with what to do when it cannot. Absent: subagents always run on the session's model.
   */
  modelFor?: (spec: string) => Promise<SubagentModel>;
  /** The session's background processes (process_manager): plan mode stops the ones that can write the project. */
  jobs?: BackgroundJobs;
  /** Runs at close(), after the executor shut down (the egress proxy, the audit log). */
  onClose?: () => Promise<void> | void;
  /**
   * The models of the catalog and models.json, each usable now or not (config/modelChoices.ts),
   * read again at each call. With `modelFor`, the session can switch models (setModel).
   */
  modelChoices?: () => ModelChoices;
  /** The session's plan (the todo tool's state): its changes go out as plan events. */
  plan?: PlanState;
}
