// The second step of prepareRuntime (prepare.ts): from one session's checked configuration
// (RuntimePlan) to its Runtime, with its own session folder, executor, egress proxy, permission
// engine (and session rules), audit log, tools and extensions.
import { randomUUID } from "node:crypto";
import { prepareModel } from "../config/modelSetup.ts";
import { listModelChoices } from "../config/modelChoices.ts";
import { checkModelAllowed } from "../config/policy.ts";
import { loadExtensions } from "../extensions/loadExtensions.ts";
import { openModelClient } from "../model/open.ts";
import { createPermissionEngine } from "../permission/engine.ts";
import { SecretIdentities } from "../files/secretIdentities.ts";
import { secretPlaces } from "../files/secrets.ts";
import { modeRefusal } from "../permission/modes.ts";
import type { Rule } from "../permission/types.ts";
import type { Mode } from "../core-types/mode.ts";
import type { EgressProxy } from "../sandbox/egressProxy.ts";
import { commandLimits, sessionLimits, unlimitedNotice } from "./limits.ts";
import { startSessionNetwork } from "./network.ts";
import { chooseCommandSandbox } from "./sandboxChoice.ts";
import { realFs } from "../sandbox/fsView.ts";
import { lexicalPath, resolveLoose, sandboxPaths } from "../sandbox/paths.ts";
import { isHomeOwnPath } from "../files/homeOwn.ts";
import { createSessionFolder, type SessionFolder, sweepSessionFolders } from "../sandbox/sessionFolders.ts";
import { createExecutor } from "../sandbox/executor.ts";
import type { ProcessExecutor, SandboxSpec } from "../sandbox/types.ts";
import { openAuditLog, permissionAuditEvent } from "../store/audit.ts";
import { createSessionStore } from "../store/sessionFile.ts";
import { createUndoStore } from "../store/undo.ts";
import { askUserTool } from "../tools/askUser.ts";
import { exploreTool } from "../tools/explore.ts";
import { createFileTools } from "../tools/fileTools.ts";
import { createSessionTools } from "../tools/sessionTools.ts";
import { webSearchConsentRequest, webSearchOptions } from "../tools/webSearch.ts";
import type { Tool } from "../tools/types.ts";
import { hooksAdapter } from "./hooksAdapter.ts";
import { wideFolder } from "../runtime/projectRoot.ts";
import { Runtime } from "../runtime/runtime.ts";
import { commandsAfterSnapshot } from "../runtime/undoTurn.ts";
import type { Notice } from "../runtime/services.ts";
import type { RuntimePlan } from "./prepareOptions.ts";

export async function buildRuntime(plan: RuntimePlan): Promise<Runtime> {
  const {
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
  } = plan;

  // The session's own folder (its sandbox tmp, the proxy's socket), removed when it closes; the
  // folders of Garuda processes that died without removing theirs go now, in the background.
  const folder: SessionFolder = await createSessionFolder(sessionFolders, sessionFolders !== usualSessionFolders);
  void sweepSessionFolders(usualSessionFolders);
  let executor: ProcessExecutor;
  // The session's egress proxy, started below once the engine exists; the executor hands it the
  // listening socket of the session's sandbox network, so it accepts there itself (no relay hop).
  let proxy: EgressProxy | undefined;
  try {
    executor = await createExecutor({
      root,
      extraRoots,
      home: paths.home,
      gitGuardDir: paths.gitGuard,
      ...(options.processWide?.gitGuards() && { gitGuards: options.processWide.gitGuards() }),
      tmpDir: folder.tmp,
      envAllowlist: settings.env.allow,
      limits: commandLimits({
        policy,
        project: settings.limits,
        projectFile: project.file,
        userPolicyFile: paths.policy,
      }),
      selfCommand: options.selfCommand,
      env: options.env,
      ...(options.probe && { probe: options.probe }),
      ...(options.processWide && { processWide: options.processWide }),
      serveProxy: (socketPath, fd) => (proxy && proxy.socketPath === socketPath ? proxy.serve(fd) : undefined),
    });
  } catch (error) {
    await folder.remove();
    throw error;
  }
  notices.push(...executor.startupNotices.map((text): Notice => ({ level: "warning", text })));
  const commands = chooseCommandSandbox(executor.sandbox, policy, {
    file: project.file,
    executor: settings.executor,
    ...(settings.profile && { profile: settings.profile }),
  });
  notices.push(...commands.notices.map((text): Notice => ({ level: "warning", text })));
  const unlimited = unlimitedNotice(executor.sandbox, executor.limits);
  if (unlimited) notices.push({ level: "warning", text: unlimited });
  const sandboxed = commands.availability.available;
  if (strict && !executor.sandbox.available) {
    await executor.shutdown();
    await folder.remove();
    throw strictRefusal(executor.sandbox);
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
      const required = policy.audit.enabled
        ? " The team policy requires it, so every tool call is refused until it can be written."
        : "";
      notices.push({ level: "warning", text: `Writing the audit log failed: ${error.message}.${required}` });
    },
  });
  // The secrets by identity, one walk of them shared by the engine's checks and the file tools' reads.
  // A walk cut at its cap (it can happen at any revalidation) is told to the user and the model;
  // one before the runtime exists waits for it.
  let runtime: Runtime | undefined;
  const cutBeforeRuntime: string[] = [];
  const identities = new SecretIdentities(secretPlaces(paths.home, executor.spec().denyReadPaths), {
    onCut: (text) => (runtime ? runtime.warn(text) : cutBeforeRuntime.push(text)),
  });
  const engine = createPermissionEngine({
    root,
    extraRoots,
    home: paths.home,
    // What the sandbox hides from commands is refused to the file tools too (files/secrets.ts).
    withheldFromCommands: executor.spec().denyReadPaths,
    identities,
    rules: [
      ...settings.rules,
      ...(options.allow ?? []).map((pattern): Rule => ({ effect: "allow", pattern, source: "session" })),
    ],
    policy,
    sandboxAvailable: sandboxed,
    audit: (event) => audit.record(permissionAuditEvent(event)),
    ...(policy.audit.enabled && { auditFailure: () => audit.lastError?.message }),
    ...(commands.projectSandbox && { projectSandbox: commands.projectSandbox }),
  });
  options.onPrepared?.({ engine, model: prepared.model });

  let closeExtensions: (() => Promise<void>) | undefined;
  try {
    if (policy.network.strictAllowlist !== null && settings.network.allow.length > 0) {
      notices.push({
        level: "warning",
        text:
          `The team policy's network allowlist is strict, so the project's network.allow ` +
          `(${settings.network.allow.join(", ")}) is not used.`,
      });
    }
    proxy = sandboxed
      ? await startSessionNetwork({
          policy,
          projectAllow: settings.network.allow,
          remembered: {
            hosts: trust.rememberedHosts(root),
            remember: (host) => trust.rememberHost(root, host),
          },
          engine,
          approver: options.approver,
          audit,
          mode: () => runtime?.mode ?? mode,
          signal: () => runtime?.activeSignal(),
          dir: folder.dir,
          ...(options.processWide && { connections: options.processWide.proxyConnections }),
        })
      : undefined;
    const network = proxy?.network ?? ({ mode: "none" } as const);
    const pathFolders = (options.env.PATH ?? "").split(":").filter((dir) => dir.startsWith("/"));
    // A writePath as wide as a refused root (/, /usr, /tmp, ~/.garuda …) would hand out what the
    // root check keeps: it is left out, with a notice, since the user configured it.
    const writePaths = settings.sandbox.writePaths.filter((path) => {
      const wide = wideFolder(resolveLoose(lexicalPath(path, root, paths.home), realFs), {
        home: paths.home,
        sessionFolders,
      });
      if (wide)
        notices.push({
          level: "warning",
          text:
            `${path} (sandbox.writePaths in ${project.file}) is not writable in the ` +
            `sandbox: it is ${wide.what}. Name a folder of the project, or one made for the ` +
            `purpose.`,
        });
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
      notices.push({
        level: "warning",
        text:
          `${refused.path} is not writable in the sandbox: it goes through the symbolic ` +
          `link ${refused.link}, in a folder commands can write, so a command could have ` +
          `made it. Replace the link with a real folder if you want it writable.`,
      });
    }
    const ruleWithheld =
      policy.denyPaths.length > 0 || settings.rules.some((rule) => rule.effect === "deny")
        ? (absPath: string) =>
            engine.check(
              {
                tool: "read_file",
                readOnly: true,
                target: { kind: "path", path: absPath, access: "read" },
                title: "",
                preview: "",
              },
              "build",
            ).outcome === "deny"
        : undefined;
    // A session at ~: searches and listings skip the home's own files, as they never reach them from a project.
    const homeOwn = checked.homeNotice ? (absPath: string) => isHomeOwnPath(absPath, paths.home) : undefined;
    const withheld =
      ruleWithheld && homeOwn
        ? (absPath: string) => ruleWithheld(absPath) || homeOwn(absPath)
        : (ruleWithheld ?? homeOwn);
    const outsideSandbox =
      policy.forbidOutsideSandbox || policy.requireSandbox || strict || commands.projectSandbox ? "forbidden" : "ask";
    const sessionTools = createSessionTools({ outsideSandbox });
    const files = createFileTools({
      home: paths.home,
      extraRoots,
      withheldFromCommands: executor.spec().denyReadPaths,
      identities,
      ...(withheld && { withheld }),
      ...(options.buffers && { buffers: options.buffers }),
    });
    const tools: Tool[] = [...files.tools, ...sessionTools.tools, exploreTool()];
    if (options.asker) tools.push(askUserTool(options.asker));
    // Custom commands, skills, agents and MCP servers (started at the first turn, not now).
    const extensions = loadExtensions({
      root,
      paths,
      env: options.env,
      trust,
      engine,
      network: {
        allow: policy.network.allow,
        blocked: policy.network.blockedHosts,
        strict: policy.network.strictAllowlist !== null,
      },
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
    const webSearch =
      search && engine.check(webSearchConsentRequest(search), mode).outcome === "allow" ? search : undefined;
    const undo = createUndoStore({ root, home: paths.home, executor });
    // The first snapshot while the user types the first prompt.
    undo.prepare();
    const openModel = options.openModel ?? openModelClient;
    const client = await openModel(prepared);
    // A custom agent's own model: the same rules as the session's (files re-read, policy, key).
    const modelFor = async (spec: string) => {
      const other = prepareModel({ paths, env: options.env, keys: options.keys, modelFlag: spec });
      checkModelAllowed(policy, other.model.spec);
      return { client: await openModel(other), info: other.model };
    };
    const limits = sessionLimits(policy.limits, settings.limits);
    const toolHooks = hooksAdapter(
      hooks.hooks,
      // A hook may write files too (a formatter after an edit): it waits for the turn's snapshot.
      { executor: commandsAfterSnapshot(executor, undo), root, home: paths.home, policy, audit },
      () => sandboxFor("build"),
      () => runtime?.mode ?? mode,
    );
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
    for (const text of cutBeforeRuntime.splice(0)) runtime.warn(text);
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
