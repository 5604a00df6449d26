// What prepareRuntime is given (prepare.ts), and what its checks hand the build
// (buildRuntime.ts): the configuration read and checked for one session.
import type { PreparedModel } from "../config/modelSetup.ts";
import type { GarudaPaths } from "../config/paths.ts";
import type { LoadedPolicy } from "../config/policy.ts";
import type { LoadedProjectSettings } from "../config/projectSettings.ts";
import type { ProviderKeys } from "../config/providerKeys.ts";
import type { TrustStore } from "../config/trust.ts";
import type { LoadedHooks } from "../extensions/hooksConfig.ts";
import type { EditorMcpServer } from "../extensions/mcp/editorServers.ts";
import type { ModelInfo } from "../model/catalog.ts";
import type { ModelClient } from "../model/types.ts";
import type { PermissionEngine } from "../permission/engine.ts";
import type { Approver } from "../permission/types.ts";
import type { Asker } from "../core-types/question.ts";
import type { Mode } from "../core-types/mode.ts";
import type { ProcessWide } from "../sandbox/processWide.ts";
import type { SandboxProbe } from "../sandbox/probe.ts";
import type { SandboxAvailability } from "../sandbox/types.ts";
import type { EditorBuffers } from "../tools/editorBuffers.ts";
import type { ConfigError } from "../errors/configError.ts";
import type { ProjectRoot } from "../runtime/projectRoot.ts";
import type { RuntimeOptions } from "../runtime/runtimeOptions.ts";
import type { Notice } from "../runtime/services.ts";

export interface PrepareOptions {
  /** The project folder: an absolute path to an existing folder. */
  root: string;
  /** The editor's unsaved buffers (ACP fs/read_text_file): read_file and @-mentions use them after their checks. */
  buffers?: EditorBuffers;
  /** The editor's MCP servers (ACP session/new mcpServers): each asked about at the first turn. */
  editorMcpServers?: readonly EditorMcpServer[];
  /** Other project folders of the session (an editor's additionalDirectories): absolute, existing (extraRoots.ts). */
  extraRoots?: readonly string[];
  paths: GarudaPaths;
  /** The process environment, provider keys already taken out. */
  env: Record<string, string | undefined>;
  keys: ProviderKeys;
  modelFlag?: string | undefined;
  /** The managed policy file for this platform (config/policy.ts managedPolicyPath); tests pass a temp file. */
  managedPolicy: string | undefined;
  approver?: Approver;
  /** Who answers the model's questions (the ask_user tool); absent (`garuda run`): the tool is not offered. */
  asker?: Asker;
  /** The mode asked for; the team policy may force another. Default build. */
  mode?: Mode;
  /** How the executor starts Garuda's sandbox bridge (cli/platform.ts selfCommand). */
  selfCommand: string[];
  /** The sandbox probe, made once per process. Default: probe now. */
  probe?: SandboxProbe;
  /**
   * What the process holds once for all its sessions (the C library, the process guards, the proxies' connection
   * budget). Default: the session's own.
   */
  processWide?: ProcessWide;
  /** The model client for a prepared model; tests give a FakeModelClient. Default: the provider's client. */
  openModel?: (prepared: PreparedModel) => Promise<ModelClient>;
  /**
   * Continue this session: its file (the terminal's --continue and --resume), or one already claimed
   * (RuntimeOptions.resume).
   */
  resume?: RuntimeOptions["resume"];
  /** The id of a new session's file (an editor names the session before its first prompt). */
  sessionId?: string;
  /** Extra allow rules for this session only (`garuda run --allow`), with source "session". */
  allow?: readonly string[];
  /**
   * The terminal's first-run questions: the project settings loosen safety, or the project has
   * hooks, and that is not approved yet. `text` says exactly what it asks for. True: approved, and
   * pinned in ~/.garuda/trust.json. Absent (ACP, `garuda run`): those parts stay off, with a notice.
   */
  projectTrust?: (question: ProjectTrustQuestion) => Promise<boolean>;
  /** Gives the front end the session's permission engine and model (the terminal's /permissions and /model). */
  onPrepared?: (parts: { engine: PermissionEngine; model: ModelInfo }) => void;
}

/** A first-run question about a project file (the terminal asks it; see PrepareOptions.projectTrust). */
export interface ProjectTrustQuestion {
  kind: "settings" | "hooks";
  file: string;
  text: string;
}

/** One session's configuration, read and checked by prepareRuntime (prepare.ts) for buildRuntime. */
export interface RuntimePlan {
  options: Omit<PrepareOptions, "resume">;
  /** The session to continue: for the runtime only (its records must not outlive the build). */
  resume: PrepareOptions["resume"];
  paths: GarudaPaths;
  /** Where session folders go: the usual base, or a private one made for this session (sandbox/sessionFolders.ts). */
  sessionFolders: string;
  /** The usual base (`<temp>/garuda-<uid>`), where the sweep of dead processes' folders starts. */
  usualSessionFolders: string;
  checked: ProjectRoot;
  root: string;
  extraRoots: string[];
  policy: LoadedPolicy["policy"];
  prepared: PreparedModel;
  trust: TrustStore;
  project: LoadedProjectSettings;
  hooks: LoadedHooks;
  mode: Mode;
  /** The notices so far; the build adds its own. */
  notices: Notice[];
  settings: LoadedProjectSettings["settings"];
  /** The team policy's denyPaths, expanded (denyPaths.ts). */
  denied: { paths: string[]; notices: string[] };
  /** The strict profile is on (team policy or project settings): no sandbox, no session. */
  strict: boolean;
  strictRefusal(sandbox: SandboxAvailability): ConfigError;
}
