// What the chat and `garuda run` do before a turn: the sandbox probe and the git guards (once
// per process, shared by the runtimes it starts), the exit handler that kills whatever a shutdown could not end, and
// prepareRuntime with the
// terminal's hooks. The same prepareRuntime as `garuda acp`: same model rules, policy, project
// settings, sandbox, permission engine, hooks and audit log.
import { dirname } from "node:path";
import { managedPolicyPath } from "../../config/policy.ts";
import type { ModelInfo } from "../../model/catalog.ts";
import type { PermissionEngine } from "../../permission/engine.ts";
import type { Approver } from "../../permission/types.ts";
import type { Asker } from "../../core-types/question.ts";
import type { Mode } from "../../core-types/mode.ts";
import { type PrepareOptions, type ProjectTrustQuestion, prepareRuntime } from "../../compose/prepare.ts";
import type { Runtime } from "../../runtime/runtime.ts";
import { probeSandbox, type SandboxProbe, trialTmpDir } from "../../sandbox/probe.ts";
import { createProcessWide } from "../../sandbox/processWide.ts";
import { descendants, signalGroup, signalProcess } from "../../sandbox/processTree.ts";
import { removeProcessFolders, sessionFolderBase } from "../../sandbox/sessionFolders.ts";
import type { CliContext } from "../context.ts";
import { selfCommand } from "../platform.ts";

export interface StartOptions {
  root: string;
  modelFlag?: string | undefined;
  approver?: Approver;
  /** Who answers the model's questions (the chat's menu); absent (`garuda run`): no ask_user tool. */
  asker?: Asker;
  mode?: Mode;
  resume?: PrepareOptions["resume"];
  allow?: readonly string[];
  projectTrust?: (question: ProjectTrustQuestion) => Promise<boolean>;
}

export interface Started {
  runtime: Runtime;
  engine: PermissionEngine;
  model: ModelInfo;
}

export type StartRuntime = (options: StartOptions) => Promise<Started>;

/** Whatever a shutdown could not end in time dies with the process, and its session folders go. */
function killLeftoversAtExit(ctx: CliContext): void {
  const base = sessionFolderBase(ctx.env);
  process.on("exit", () => {
    for (const pid of descendants(process.pid)) {
      signalGroup(pid, "SIGKILL");
      signalProcess(pid, "SIGKILL");
    }
    removeProcessFolders(base);
  });
}

/**
 * A starter for this process: one sandbox probe (a failed one is tried again), one ProcessWide (the git guards among
 * it) and one exit handler.
 */
export function runtimeStarter(ctx: CliContext): StartRuntime {
  let probe: Promise<SandboxProbe> | undefined;
  const processWide = createProcessWide({ gitGuardDir: ctx.paths.gitGuard, path: ctx.env.PATH });
  let exitHandler = false;
  return async (options) => {
    if (!exitHandler) {
      exitHandler = true;
      killLeftoversAtExit(ctx);
    }
    probe ??= probeSandbox({ env: ctx.env, tmpDir: trialTmpDir() });
    const probed = await probe.catch((error: unknown) => {
      probe = undefined;
      throw error;
    });
    let parts: { engine: PermissionEngine; model: ModelInfo } | undefined;
    const runtime = await prepareRuntime({
      root: options.root,
      paths: ctx.paths,
      env: ctx.env,
      keys: ctx.keys,
      modelFlag: options.modelFlag,
      managedPolicy: managedPolicyPath(),
      ...(options.approver && { approver: options.approver }),
      ...(options.asker && { asker: options.asker }),
      ...(options.mode && { mode: options.mode }),
      ...(options.resume !== undefined && { resume: options.resume }),
      ...(options.allow && { allow: options.allow }),
      ...(options.projectTrust && { projectTrust: options.projectTrust }),
      selfCommand: selfCommand(process.execPath, dirname(Bun.main)),
      probe: probed,
      processWide,
      onPrepared: (prepared) => {
        parts = prepared;
      },
    });
    if (!parts) throw new Error("prepareRuntime did not report its engine and model");
    return { runtime, ...parts };
  };
}
