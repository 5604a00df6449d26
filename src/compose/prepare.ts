// From configuration to a running session: every front end (ACP, the chat, `garuda run`) calls
// prepareRuntime, so every session gets the same model rules, team policy, project settings,
// sandbox, permission engine, hooks, audit log and tools. Files are read again on every call,
// so a session started after `garuda setup` (or a policy change) sees it without a restart.
import { ConfigError } from "../errors/configError.ts";
import { prepareModel } from "../config/modelSetup.ts";
import { checkModelAllowed, loadTeamPolicy } from "../config/policy.ts";
import { approveProjectSettings, describeLoosening, loadProjectSettings } from "../config/projectSettings.ts";
import { APPROVE_IN_CHAT, TrustStore } from "../config/trust.ts";
import { approveProjectHooks, describeProjectHooks, loadHooks } from "../extensions/hooksConfig.ts";
import { resolveMode } from "../permission/modes.ts";
import { ensureSessionFolderBase, sessionFolderBase } from "../sandbox/sessionFolders.ts";
import type { SandboxAvailability } from "../sandbox/types.ts";
import { expandDenyPaths } from "./denyPaths.ts";
import { resumedModelChoice } from "./resumedModel.ts";
import { checkExtraRoots } from "./extraRoots.ts";
import { checkProjectRoot } from "../runtime/projectRoot.ts";
import type { Runtime } from "../runtime/runtime.ts";
import type { Notice } from "../runtime/services.ts";
import { buildRuntime } from "./buildRuntime.ts";
import type { PrepareOptions, RuntimePlan } from "./prepareOptions.ts";

export type { PrepareOptions, ProjectTrustQuestion } from "./prepareOptions.ts";

/**
 * Reads the configuration and builds one session's Runtime with its own executor, egress proxy,
 * permission engine (and session rules), audit log and tools. Throws SetupRequiredError when no
 * model or key is set up, ConfigError for a broken file or a bad folder. Everything a setup error
 * can come from (folders, team policy, model and key, project files, the strict profile against
 * the sandbox probe) is read and checked here first; buildRuntime.ts then starts the session.
 */
export async function prepareRuntime(given: PrepareOptions): Promise<Runtime> {
  // The session to continue goes to the runtime only (buildRuntime passes it on): the build's
  // closures keep `options` for the session's life, and a continued session's records must not
  // live that long (its messages do).
  const { resume, ...options } = given;
  const { paths } = options;
  // Where session folders go: `garuda-<uid>` in the temp folder of `env`, or a fresh private
  // folder when that one is not this user's own (sandbox/sessionFolders.ts).
  const usualSessionFolders = sessionFolderBase(options.env);
  const folderBase = ensureSessionFolderBase(usualSessionFolders);
  const sessionFolders = folderBase.dir;
  const checked = checkProjectRoot(options.root, { home: paths.home, sessionFolders });
  const root = checked.root;
  const extraRoots = checkExtraRoots(options.extraRoots ?? [], root, { home: paths.home, sessionFolders });
  const { policy, notices: policyNotices } = loadTeamPolicy({
    managed: options.managedPolicy,
    user: paths.policy,
    root,
  });
  const resumedModel = resumedModelChoice(resume, options, policy);
  const prepared =
    resumedModel?.prepared ??
    prepareModel({ paths, env: options.env, keys: options.keys, modelFlag: options.modelFlag });
  checkModelAllowed(policy, prepared.model.spec);
  const trust = new TrustStore(paths.trust);
  // The user who just answered no in the terminal is not told to go and answer yes.
  const withoutApprovalHint = (texts: string[]) => texts.filter((text) => !text.endsWith(APPROVE_IN_CHAT));
  let project = loadProjectSettings({ root, paths, trust });
  if (project.loosening && !project.trusted && options.projectTrust) {
    if (
      await options.projectTrust({
        kind: "settings",
        file: project.file,
        text: describeLoosening(project.loosening, project.file),
      })
    ) {
      approveProjectSettings(project, trust, root);
      project = loadProjectSettings({ root, paths, trust });
    } else project = { ...project, notices: withoutApprovalHint(project.notices) };
  }
  let hooks = loadHooks({ root, paths, trust });
  if (hooks.project && !hooks.project.trusted && options.projectTrust) {
    if (
      await options.projectTrust({ kind: "hooks", file: hooks.project.file, text: describeProjectHooks(hooks.project) })
    ) {
      approveProjectHooks(hooks.project, trust, root);
      hooks = loadHooks({ root, paths, trust });
    } else hooks = { ...hooks, notices: withoutApprovalHint(hooks.notices) };
  }
  const requested = resolveMode(policy, options.mode ?? "build");
  const mode = requested.mode;

  const notices: Notice[] = [
    ...(folderBase.notice ? [folderBase.notice] : []),
    ...(checked.homeNotice ? [checked.homeNotice] : []),
    ...(resumedModel?.notice ? [resumedModel.notice] : []),
    ...policyNotices,
    ...trust.notices(),
    ...project.notices,
    ...hooks.notices,
    ...(requested.notice ? [requested.notice] : []),
  ].map((text) => ({ level: "warning", text }));
  const settings = project.settings;
  const denied = expandDenyPaths([...policy.denyPaths], root, paths.home);
  notices.push(...denied.notices.map((text): Notice => ({ level: "warning", text })));
  const strict = policy.strictProfile !== null || settings.profile === "strict";
  const strictRefusal = (sandbox: SandboxAvailability) =>
    new ConfigError(
      policy.strictProfile?.file ?? project.file,
      "the strict profile needs the OS sandbox, and it is not available here",
      sandbox.available ? undefined : sandbox.fix,
    );
  const plan: RuntimePlan = {
    options,
    resume,
    paths,
    sessionFolders,
    usualSessionFolders,
    checked,
    root,
    extraRoots,
    policy,
    prepared,
    trust,
    project,
    hooks,
    mode,
    notices,
    settings,
    denied,
    strict,
    strictRefusal,
  };
  return buildRuntime(plan);
}
