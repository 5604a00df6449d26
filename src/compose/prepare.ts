// From configuration to a running session: every front end (ACP, the chat, `garuda run`) calls
// prepareRuntime, so every session gets the same model rules, team policy, project settings,
// sandbox, permission engine, hooks, audit log and tools. Files are read again on every call,
// so a session started after `garuda setup` (or a policy change) sees it without a restart.
import { randomUUID } from "node:crypto";
import { messageOf } from "../errors/caught.ts";
import { ConfigError } from "../errors/configError.ts";
import { type PreparedModel, prepareModel } from "../config/modelSetup.ts";
import type { GarudaPaths } from "../config/paths.ts";
import { listModelChoices } from "../config/modelChoices.ts";
import { checkModelAllowed, loadTeamPolicy } from "../config/policy.ts";
import { approveProjectSettings, describeLoosening, loadProjectSettings } from "../config/projectSettings.ts";
import type { ProviderKeys } from "../config/providerKeys.ts";
import { APPROVE_IN_CHAT, TrustStore } from "../config/trust.ts";
import { approveProjectHooks, describeProjectHooks, loadHooks } from "../extensions/hooksConfig.ts";
import type { EditorMcpServer } from "../extensions/mcp/editorServers.ts";
import { loadExtensions } from "../extensions/loadExtensions.ts";
import { openModelClient } from "../model/open.ts";
import type { ModelInfo } from "../model/catalog.ts";
import type { ModelClient } from "../model/types.ts";
import { createPermissionEngine, type PermissionEngine } from "../permission/engine.ts";
import { modeRefusal, resolveMode } from "../permission/modes.ts";
import type { Approver, Rule } from "../permission/types.ts";
import type { Mode } from "../core-types/mode.ts";
import type { EgressProxy } from "../sandbox/egressProxy.ts";
import { commandLimits, sessionLimits, unlimitedNotice } from "./limits.ts";
import { startSessionNetwork } from "./network.ts";
import { chooseCommandSandbox } from "./sandboxChoice.ts";
import { realFs } from "../sandbox/fsView.ts";
import { lexicalPath, resolveLoose, sandboxPaths } from "../sandbox/paths.ts";
import { isHomeOwnPath } from "../files/homeOwn.ts";
import { createSessionFolder, type SessionFolder, sessionFolderBase, sweepSessionFolders } from "../sandbox/sessionFolders.ts";
import { createExecutor } from "../sandbox/executor.ts";
import type { SandboxProbe } from "../sandbox/probe.ts";
import type { ProcessExecutor, SandboxSpec } from "../sandbox/types.ts";
import { openAuditLog, permissionAuditEvent } from "../store/audit.ts";
import { createSessionStore } from "../store/sessionFile.ts";
import { createUndoStore } from "../store/undo.ts";
import { exploreTool } from "../tools/explore.ts";
import type { EditorBuffers } from "../tools/editorBuffers.ts";
import { createFileTools } from "../tools/fileTools.ts";
import { createSessionTools } from "../tools/sessionTools.ts";
import { webSearchConsentRequest, webSearchOptions } from "../tools/webSearch.ts";
import type { Tool } from "../tools/types.ts";
import { expandDenyPaths } from "./denyPaths.ts";
import { hooksAdapter } from "./hooksAdapter.ts";
import { resumedModelChoice } from "./resumedModel.ts";
import { checkExtraRoots } from "./extraRoots.ts";
import { checkProjectRoot, wideFolder } from "../runtime/projectRoot.ts";
import { Runtime } from "../runtime/runtime.ts";
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
  /** The mode asked for; the team policy may force another. Default build. */
  mode?: Mode;
  /** How the executor starts Garuda's sandbox bridge (cli/platform.ts selfCommand). */
  selfCommand: string[];
  /** The sandbox probe, made once per process. Default: probe now. */
  probe?: SandboxProbe;
  /** The model client for a prepared model; tests give a FakeModelClient. Default: the provider's client. */
  openModel?: (prepared: PreparedModel) => Promise<ModelClient>;
  /** Continue this session: its file (the terminal's --continue and --resume), or one already claimed (RuntimeOptions.resume). */
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

/**
 * Reads the configuration and builds one session's Runtime with its own executor, egress proxy,
 * permission engine (and session rules), audit log and tools. Throws SetupRequiredError when no
 * model or key is set up, ConfigError for a broken file or a bad folder.
 */
export async function prepareRuntime(given: PrepareOptions): Promise<Runtime> {
  // The session to continue goes to the runtime only: the closures below keep `options` for the
  // session's life, and a continued session's records must not live that long (its messages do).
  const { resume, ...options } = given;
  const { paths } = options;
  // Where session folders go: `garuda-<uid>` in the temp folder of `env` (sandbox/sessionFolders.ts).
  const sessionFolders = sessionFolderBase(options.env);
  const checked = checkProjectRoot(options.root, { home: paths.home, sessionFolders });
  const root = checked.root;
  const extraRoots = checkExtraRoots(options.extraRoots ?? [], root, { home: paths.home, sessionFolders });
  const { policy, notices: policyNotices } = loadTeamPolicy({ managed: options.managedPolicy, user: paths.policy, root });
  const resumedModel = resumedModelChoice(resume, options, policy);
  const prepared = resumedModel?.prepared ?? prepareModel({ paths, env: options.env, keys: options.keys, modelFlag: options.modelFlag });
  checkModelAllowed(policy, prepared.model.spec);
  const trust = new TrustStore(paths.trust);
  // The user who just answered no in the terminal is not told to go and answer yes.
  const withoutApprovalHint = (texts: string[]) => texts.filter((text) => !text.endsWith(APPROVE_IN_CHAT));
  let project = loadProjectSettings({ root, paths, trust });
  if (project.loosening && !project.trusted && options.projectTrust) {
    if (await options.projectTrust({ kind: "settings", file: project.file, text: describeLoosening(project.loosening, project.file) })) {
      approveProjectSettings(project, trust, root);
      project = loadProjectSettings({ root, paths, trust });
    } else project = { ...project, notices: withoutApprovalHint(project.notices) };
  }
  let hooks = loadHooks({ root, paths, trust });
  if (hooks.project && !hooks.project.trusted && options.projectTrust) {
    if (await options.projectTrust({ kind: "hooks", file: hooks.project.file, text: describeProjectHooks(hooks.project) })) {
      approveProjectHooks(hooks.project, trust, root);
      hooks = loadHooks({ root, paths, trust });
    } else hooks = { ...hooks, notices: withoutApprovalHint(hooks.notices) };
  }
  const requested = resolveMode(policy, options.mode ?? "build");
  let mode = requested.mode;

  const notices: Notice[] = [...(checked.homeNotice ? [checked.homeNotice] : []), ...(resumedModel?.notice ? [resumedModel.notice] : []), ...policyNotices, ...trust.notices(), ...project.notices, ...hooks.notices, ...(requested.notice ? [requested.notice] : [])].map(
    (text) => ({ level: "warning", text }),
  );
  const settings = project.settings;
  const denied = expandDenyPaths([...policy.denyPaths], root, paths.home);
  notices.push(...denied.notices.map((text): Notice => ({ level: "warning", text })));

  // The session's own folder (its sandbox tmp, the proxy's socket), removed when it closes; the
  // folders of Garuda processes that died without removing theirs go now, in the background.
  const folder: SessionFolder = createSessionFolder(sessionFolders);
  void sweepSessionFolders(sessionFolders);
  let executor: ProcessExecutor;
  // The session's egress proxy, started below once the engine exists; the executor hands it the
  // listening socket of the session's sandbox network, so it accepts there itself (no relay hop).
  let proxy: EgressProxy | undefined;
  try {
    executor = await createExecutor({
      root,
      home: paths.home,
      gitGuardDir: paths.gitGuard,
      tmpDir: folder.tmp,
      envAllowlist: settings.env.allow,
      limits: commandLimits({ policy, project: settings.limits, projectFile: project.file, userPolicyFile: paths.policy }),
      selfCommand: options.selfCommand,
      env: options.env,
      ...(options.probe && { probe: options.probe }),
      serveProxy: (socketPath, fd) => (proxy && proxy.socketPath === socketPath ? proxy.serve(fd) : undefined),
    });
  } catch (error) {
    await folder.remove();
    throw error;
  }
  notices.push(...executor.startupNotices.map((text): Notice => ({ level: "warning", text })));
  const strict = policy.strictProfile !== null || settings.profile === "strict";
  const commands = chooseCommandSandbox(executor.sandbox, policy, { file: project.file, executor: settings.executor, ...(settings.profile && { profile: settings.profile }) });
  notices.push(...commands.notices.map((text): Notice => ({ level: "warning", text })));
  const unlimited = unlimitedNotice(executor.sandbox, executor.limits);
  if (unlimited) notices.push({ level: "warning", text: unlimited });
  const sandboxed = commands.availability.available;
  if (strict && !executor.sandbox.available) {
    await executor.shutdown();
    await folder.remove();
    throw new ConfigError(policy.strictProfile?.file ?? project.file, "the strict profile needs the OS sandbox, and it is not available here", executor.sandbox.fix);
  }

  const session = randomUUID();
  let auditWarned = false;
  const audit = openAuditLog({
    auditDir: paths.audit,
    root,
    session,
    level: policy.audit.level,
    secrets: options.keys.secrets(),
    onError: (error) => {
      if (auditWarned) return;
      auditWarned = true;
      const required = policy.audit.enabled ? " The team policy requires it, so every tool call is refused until it can be written." : "";
      notices.push({ level: "warning", text: `Writing the audit log failed: ${error.message}.${required}` });
    },
  });
  const engine = createPermissionEngine({
    root,
    extraRoots,
    home: paths.home,
    // What the sandbox hides from commands is refused to the file tools too (files/secrets.ts).
    withheldFromCommands: executor.spec().denyReadPaths,
    rules: [...settings.rules, ...(options.allow ?? []).map((pattern): Rule => ({ effect: "allow", pattern, source: "session" }))],
    policy,
    sandboxAvailable: sandboxed,
    audit: (event) => audit.record(permissionAuditEvent(event)),
    ...(policy.audit.enabled && { auditFailure: () => audit.lastError?.message }),
    ...(commands.projectSandbox && { projectSandbox: commands.projectSandbox }),
  });
  options.onPrepared?.({ engine, model: prepared.model });

  let runtime: Runtime | undefined;
  let closeExtensions: (() => Promise<void>) | undefined;
  try {
    if (policy.network.strictAllowlist !== null && settings.network.allow.length > 0) {
      notices.push({ level: "warning", text: `The team policy's network allowlist is strict, so the project's network.allow (${settings.network.allow.join(", ")}) is not used.` });
    }
    proxy = sandboxed
      ? await startSessionNetwork({
          policy,
          projectAllow: settings.network.allow,
          engine,
          approver: options.approver,
          audit,
          mode: () => runtime?.mode ?? mode,
          signal: () => runtime?.activeSignal(),
          dir: folder.dir,
        })
      : undefined;
    const network = proxy?.network ?? ({ mode: "none" } as const);
    const pathFolders = (options.env.PATH ?? "").split(":").filter((dir) => dir.startsWith("/"));
    // A writePath as wide as a refused root (/, /usr, /tmp, ~/.garuda …) would hand out what the
    // root check keeps: it is left out, with a notice, since the user configured it.
    const writePaths = settings.sandbox.writePaths.filter((path) => {
      const wide = wideFolder(resolveLoose(lexicalPath(path, root, paths.home), realFs), { home: paths.home, sessionFolders });
      if (wide) notices.push({ level: "warning", text: `${path} (sandbox.writePaths in ${project.file}) is not writable in the sandbox: it is ${wide.what}. Name a folder of the project, or one made for the purpose.` });
      return wide === undefined;
    });
    const sandboxFor = (current: Mode): SandboxSpec | null =>
      sandboxed
        ? {
            ...executor.spec({
              projectReadOnly: current === "plan",
              extraRoots,
              writePaths,
              denyReadPaths: [...settings.sandbox.denyRead, ...denied.paths],
              network,
            }),
            pathFolders,
            sessionsDir: sessionFolders,
          }
        : null;
    // A writePath that reaches its folder through a symlink a command could have planted is not
    // made writable (src/sandbox/paths.ts); say so, since the user configured it.
    const buildSpec = sandboxFor("build");
    for (const refused of buildSpec ? sandboxPaths(buildSpec, realFs).refused : []) {
      notices.push({ level: "warning", text: `${refused.path} is not writable in the sandbox: it goes through the symbolic link ${refused.link}, in a folder commands can write, so a command could have made it. Replace the link with a real folder if you want it writable.` });
    }
    const ruleWithheld = policy.denyPaths.length > 0 || settings.rules.some((rule) => rule.effect === "deny")
      ? (absPath: string) => engine.check({ tool: "read_file", readOnly: true, target: { kind: "path", path: absPath, access: "read" }, title: "", preview: "" }, "build").outcome === "deny"
      : undefined;
    // A session at ~: searches and listings skip the home's own files, as they never reach them from a project.
    const homeOwn = checked.homeNotice ? (absPath: string) => isHomeOwnPath(absPath, paths.home) : undefined;
    const withheld = ruleWithheld && homeOwn ? (absPath: string) => ruleWithheld(absPath) || homeOwn(absPath) : (ruleWithheld ?? homeOwn);
    const outsideSandbox = policy.forbidOutsideSandbox || policy.requireSandbox || strict || commands.projectSandbox ? "forbidden" : "ask";
    const sessionTools = createSessionTools({ outsideSandbox });
    const files = createFileTools({ home: paths.home, extraRoots, withheldFromCommands: executor.spec().denyReadPaths, ...(withheld && { withheld }), ...(options.buffers && { buffers: options.buffers }) });
    const tools: Tool[] = [...files.tools, ...sessionTools.tools, exploreTool()];
    // Custom commands, skills, agents and MCP servers (started at the first turn, not now).
    const extensions = loadExtensions({
      root,
      paths,
      env: options.env,
      trust,
      engine,
      network: { allow: policy.network.allow, blocked: policy.network.blockedHosts, strict: policy.network.strictAllowlist !== null },
      approver: options.approver,
      executor,
      sandbox: () => sandboxFor("build"),
      hostAllowed: outsideSandbox !== "forbidden",
      ...(options.editorMcpServers && { editorServers: options.editorMcpServers }),
      tools,
    });
    tools.push(...extensions.tools);
    notices.push(...extensions.notices.map((text): Notice => ({ level: "warning", text })));
    closeExtensions = extensions.close;
    // Claude's server web search runs at Anthropic, where no question can stop it halfway: it is
    // offered only when a rule allows `web_search` (e.g. permissions.allow in ~/.garuda/policy.json).
    const search = webSearchOptions({ enabled: true });
    const webSearch = search && engine.check(webSearchConsentRequest(search), mode).outcome === "allow" ? search : undefined;
    const undo = createUndoStore({ root, home: paths.home, executor });
    const openModel = options.openModel ?? openModelClient;
    const client = await openModel(prepared);
    // A custom agent's own model: the same rules as the session's (files re-read, policy, key).
    const modelFor = async (spec: string) => {
      const other = prepareModel({ paths, env: options.env, keys: options.keys, modelFlag: spec });
      checkModelAllowed(policy, other.model.spec);
      return { client: await openModel(other), info: other.model };
    };
    const limits = sessionLimits(policy.limits, settings.limits);
    const toolHooks = hooksAdapter(hooks.hooks, { executor, root, home: paths.home, policy, audit }, () => sandboxFor("build"), () => runtime?.mode ?? mode);
    runtime = Runtime.create({
      root,
      extraRoots,
      withheld: files.deps.withheld,
      ...(options.buffers && { buffers: files.deps }),
      home: paths.home,
      sessionStore: (onWriteError) => createSessionStore({ sessionsDir: paths.sessions, onError: onWriteError }),
      model: { client, info: prepared.model, ...(webSearch && { webSearch }) },
      modelFor,
      modelChoices: () => listModelChoices({ paths, env: options.env, keys: options.keys }, policy),
      plan: sessionTools.plan,
      tools,
      engine,
      executor,
      ...(options.approver && { approver: options.approver }),
      mode,
      limits,
      sandboxAvailability: commands.availability,
      modeRefusal: (wanted) => modeRefusal(policy, wanted),
      audit,
      undo,
      notices,
      sandboxFor,
      jobs: sessionTools.processes,
      ...(toolHooks && { hooks: toolHooks }),
      commands: extensions.commands,
      ...(resume !== undefined && { resume }),
      ...(options.sessionId !== undefined && { sessionId: options.sessionId }),
      ...(extensions.turns && { extensions: extensions.turns }),
      onClose: async () => {
        await extensions.close();
        await proxy?.close();
        audit.close();
        await folder.remove();
      },
    });
    return runtime;
  } catch (error) {
    await closeExtensions?.();
    await executor.shutdown();
    await proxy?.close();
    audit.close();
    await folder.remove();
    throw error;
  }
}

/** The lower of two optional limits each. */

