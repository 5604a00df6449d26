// From configuration to a running session: every front end (ACP, the chat, `garuda run`) calls
// prepareRuntime, so every session gets the same model rules, team policy, project settings,
// sandbox, permission engine, hooks, audit log and tools. Files are read again on every call,
// so a session started after `garuda setup` (or a policy change) sees it without a restart.
import { randomUUID } from "node:crypto";
import { realpathSync, statSync } from "node:fs";
import { isAbsolute } from "node:path";
import { ConfigError } from "../config/errors.ts";
import { type PreparedModel, prepareModel } from "../config/modelSetup.ts";
import type { GarudaPaths } from "../config/paths.ts";
import { checkModelAllowed, loadTeamPolicy } from "../config/policy.ts";
import { approveProjectSettings, describeLoosening, loadProjectSettings } from "../config/projectSettings.ts";
import type { ProviderKeys } from "../config/providerKeys.ts";
import { APPROVE_IN_CHAT, TrustStore } from "../config/trust.ts";
import { runPostToolUse, runPreToolUse } from "../extensions/hooks.ts";
import { approveProjectHooks, describeProjectHooks, loadHooks } from "../extensions/hooksConfig.ts";
import { loadExtensions } from "../extensions/session.ts";
import { openModelClient } from "../model/open.ts";
import type { ModelInfo } from "../model/catalog.ts";
import type { ModelClient } from "../model/types.ts";
import { createPermissionEngine, type PermissionEngine } from "../permission/engine.ts";
import { modeRefusal, resolveMode } from "../permission/modes.ts";
import type { TeamPolicy } from "../permission/teamPolicy.ts";
import type { Approver, Mode, Rule } from "../permission/types.ts";
import type { EgressProxy } from "../sandbox/egressProxy.ts";
import { sessionLimits } from "./limits.ts";
import { startSessionNetwork } from "./network.ts";
import { chooseCommandSandbox } from "./sandboxChoice.ts";
import { realFs } from "../sandbox/fsView.ts";
import { sandboxPaths } from "../sandbox/paths.ts";
import { createExecutor } from "../sandbox/executor.ts";
import type { SandboxProbe } from "../sandbox/probe.ts";
import type { ProcessExecutor, SandboxSpec } from "../sandbox/types.ts";
import { openAuditLog, permissionAuditEvent } from "../store/audit.ts";
import { createUndoStore } from "../store/undo.ts";
import { exploreTool } from "../tools/explore.ts";
import { fileTools } from "../tools/fileTools.ts";
import { createSessionTools } from "../tools/sessionTools.ts";
import { webSearchConsentRequest, webSearchOptions } from "../tools/webSearch.ts";
import type { Tool } from "../tools/types.ts";
import { expandDenyPaths } from "./denyPaths.ts";
import { Runtime } from "./runtime.ts";
import type { Notice, ToolHooks } from "./services.ts";

export interface PrepareOptions {
  /** The project folder: an absolute path to an existing folder. */
  root: string;
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
  /** Continue the session in this file (the terminal's --continue and --resume). */
  resume?: string;
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

/** A bad working folder: a front end shows the message as is. */
function checkRoot(root: string): string {
  if (!isAbsolute(root)) throw new ConfigError(undefined, `The project folder must be an absolute path, not "${root}"`);
  let real: string;
  try {
    real = realpathSync(root);
  } catch {
    throw new ConfigError(undefined, `The project folder ${root} does not exist`);
  }
  if (!statSync(real).isDirectory()) throw new ConfigError(undefined, `${root} is not a folder`);
  return real;
}

/**
 * Hooks run in the build-mode sandbox in every mode: they are the user's (or an approved
 * project's) own automation, and one that writes a log in the project must not block every call
 * in plan mode. The mode still reaches their policy checks.
 */
function hooksAdapter(
  hooks: ReturnType<typeof loadHooks>["hooks"],
  services: Omit<Parameters<typeof runPreToolUse>[2], "signal" | "mode" | "sandbox">,
  sandbox: () => SandboxSpec | null,
  mode: () => Mode,
): ToolHooks | undefined {
  if (hooks.length === 0) return undefined;
  const context = (signal: AbortSignal) => ({ ...services, sandbox: sandbox(), mode: mode(), signal });
  return {
    async pre(call, signal) {
      const outcome = await runPreToolUse(hooks, call, context(signal));
      return outcome.blocked ? { block: outcome.reason, warnings: outcome.warnings } : { warnings: outcome.warnings };
    },
    async post(call, result, signal) {
      const outcome = await runPostToolUse(hooks, call, result.output, context(signal));
      return { feedback: outcome.feedback, warnings: outcome.warnings };
    },
  };
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
export async function prepareRuntime(options: PrepareOptions): Promise<Runtime> {
  const root = checkRoot(options.root);
  const { paths } = options;
  const prepared = prepareModel({ paths, env: options.env, keys: options.keys, modelFlag: options.modelFlag });
  const { policy, notices: policyNotices } = loadTeamPolicy({ managed: options.managedPolicy, user: paths.policy, root });
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

  const notices: Notice[] = [...policyNotices, ...trust.notices(), ...project.notices, ...hooks.notices, ...(requested.notice ? [requested.notice] : [])].map(
    (text) => ({ level: "warning", text }),
  );
  const settings = project.settings;
  const denied = expandDenyPaths([...policy.denyPaths], root, paths.home);
  notices.push(...denied.notices.map((text): Notice => ({ level: "warning", text })));

  const executor: ProcessExecutor = await createExecutor({
    root,
    home: paths.home,
    envAllowlist: settings.env.allow,
    selfCommand: options.selfCommand,
    env: options.env,
    ...(options.probe && { probe: options.probe }),
  });
  notices.push(...executor.startupNotices.map((text): Notice => ({ level: "warning", text })));
  const strict = policy.strictProfile !== null || settings.profile === "strict";
  const commands = chooseCommandSandbox(executor.sandbox, policy, { file: project.file, executor: settings.executor, ...(settings.profile && { profile: settings.profile }) });
  notices.push(...commands.notices.map((text): Notice => ({ level: "warning", text })));
  const sandboxed = commands.availability.available;
  if (strict && !executor.sandbox.available) {
    await executor.shutdown();
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
    home: paths.home,
    rules: [...settings.rules, ...(options.allow ?? []).map((pattern): Rule => ({ effect: "allow", pattern, source: "session" }))],
    policy,
    sandboxAvailable: sandboxed,
    audit: (event) => audit.record(permissionAuditEvent(event)),
    ...(policy.audit.enabled && { auditFailure: () => audit.lastError?.message }),
    ...(commands.projectSandbox && { projectSandbox: commands.projectSandbox }),
  });
  options.onPrepared?.({ engine, model: prepared.model });

  let runtime: Runtime | undefined;
  let proxy: EgressProxy | undefined;
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
        })
      : undefined;
    const network = proxy?.network ?? ({ mode: "none" } as const);
    const sandboxFor = (current: Mode): SandboxSpec | null =>
      sandboxed
        ? executor.spec({
            projectReadOnly: current === "plan",
            writePaths: settings.sandbox.writePaths,
            denyReadPaths: [...settings.sandbox.denyRead, ...denied.paths],
            network,
          })
        : null;
    // A writePath that reaches its folder through a symlink a command could have planted is not
    // made writable (src/sandbox/paths.ts); say so, since the user configured it.
    const buildSpec = sandboxFor("build");
    for (const refused of buildSpec ? sandboxPaths(buildSpec, realFs).refused : []) {
      notices.push({ level: "warning", text: `${refused.path} is not writable in the sandbox: it goes through the symbolic link ${refused.link}, in a folder commands can write, so a command could have made it. Replace the link with a real folder if you want it writable.` });
    }
    const hidden = policy.denyPaths.length > 0 || settings.rules.some((rule) => rule.effect === "deny")
      ? (absPath: string) => engine.check({ tool: "read_file", readOnly: true, target: { kind: "path", path: absPath, access: "read" }, title: "", preview: "" }, "build").outcome === "deny"
      : undefined;
    const outsideSandbox = policy.forbidOutsideSandbox || policy.requireSandbox || strict || commands.projectSandbox ? "forbidden" : "ask";
    const tools: Tool[] = [...fileTools({ ...(hidden && { hidden }) }), ...createSessionTools({ outsideSandbox }).tools, exploreTool()];
    // Custom commands, skills, agents and MCP servers (started at the first turn, not now).
    const extensions = loadExtensions({
      root,
      paths,
      env: options.env,
      trust,
      engine,
      approver: options.approver,
      executor,
      sandbox: () => sandboxFor("build"),
      hostAllowed: outsideSandbox !== "forbidden",
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
      home: paths.home,
      model: { client, info: prepared.model, ...(webSearch && { webSearch }) },
      modelFor,
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
      ...(toolHooks && { hooks: toolHooks }),
      commands: extensions.commands,
      ...(options.resume !== undefined && { resume: options.resume }),
      ...(extensions.turns && { extensions: extensions.turns }),
      onClose: async () => {
        await extensions.close();
        await proxy?.close();
        audit.close();
      },
    });
    return runtime;
  } catch (error) {
    await closeExtensions?.();
    await executor.shutdown();
    await proxy?.close();
    audit.close();
    throw error;
  }
}

/** The lower of two optional limits each. */

