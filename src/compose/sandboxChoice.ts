// Where a session's commands run, from the OS sandbox probe, the team policy and the project's
// settings: `executor` "auto" (the sandbox when it works), "os" (the sandbox or nothing: a
// tightening) or "host" (directly on this computer, every command asked: a loosening, so only
// once trusted, and never against a policy that wants the sandbox); `profile` "strict" keeps every
// command in the sandbox too.
import type { ProjectSandboxRule } from "../permission/decide.ts";
import type { TeamPolicy } from "../permission/teamPolicy.ts";
import type { SandboxAvailability } from "../sandbox/types.ts";

export interface CommandSandboxChoice {
  /** What the session tells the engine, the system prompt and the tools: is there a sandbox for commands? */
  availability: SandboxAvailability;
  /** The project keeps every command in the sandbox. */
  projectSandbox?: ProjectSandboxRule;
  notices: string[];
}

export interface ProjectExecutorSettings {
  /** The settings file (for messages). */
  file: string;
  /** Already "auto" when "host" is not trusted (src/config/projectSettings.ts). */
  executor: "auto" | "os" | "host";
  profile?: "strict";
}

export function chooseCommandSandbox(
  probe: SandboxAvailability,
  policy: TeamPolicy,
  project: ProjectExecutorSettings,
): CommandSandboxChoice {
  const notices: string[] = [];
  const projectSandbox: ProjectSandboxRule | undefined =
    project.profile === "strict"
      ? { pattern: "profile(strict)", file: project.file }
      : project.executor === "os"
        ? { pattern: "executor(os)", file: project.file }
        : undefined;
  const base = { ...(projectSandbox && { projectSandbox }), notices };
  if (project.executor !== "host") return { availability: probe, ...base };
  const policyWantsSandbox = policy.requireSandbox ?? policy.strictProfile ?? policy.forbidOutsideSandbox;
  if (policyWantsSandbox) {
    notices.push(
      `The team policy (${policyWantsSandbox.file}) keeps commands in the OS sandbox, ` +
        `so the project's "executor": "host" (${project.file}) is not used.`,
    );
    return { availability: probe, ...base };
  }
  return {
    availability: {
      available: false,
      reason: `the project's settings (${project.file}) run commands directly on this computer ("executor": "host").`,
      fix: 'Remove "executor": "host" from that file to use the OS sandbox again.',
    },
    ...base,
  };
}
