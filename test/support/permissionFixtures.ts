// Request builders and an engine factory for the permission tests.
import {
  createPermissionEngine,
  type PermissionAuditEvent,
  type PermissionEngineOptions,
} from "../../src/permission/engine.ts";
import { emptyTeamPolicy, type TeamPolicy } from "../../src/permission/teamPolicy.ts";
import type { Approver, ApprovalRequest, Choice, PermissionRequest, Rule } from "../../src/permission/types.ts";

export const ROOT = "/work/proj";
export const HOME = "/home/u";

export function command(commandLine: string, sandboxed = false, callId?: string): PermissionRequest {
  return {
    tool: "bash",
    readOnly: false,
    target: { kind: "command", command: commandLine, sandboxed },
    title: `$ ${commandLine}`,
    preview: commandLine,
    ...(callId ? { callId } : {}),
  };
}

export function read(path: string, tool = "read_file"): PermissionRequest {
  return { tool, readOnly: true, target: { kind: "path", path, access: "read" }, title: `Read ${path}`, preview: path };
}

export function write(path: string, tool = "edit_file"): PermissionRequest {
  return {
    tool,
    readOnly: false,
    target: { kind: "path", path, access: "write" },
    title: `Edit ${path}`,
    preview: `--- ${path}\n+++ ${path}`,
    change: { path, oldText: "a", newText: "b" },
  };
}

export function fetchUrl(url: string): PermissionRequest {
  return { tool: "web_fetch", readOnly: false, target: { kind: "url", url }, title: `Fetch ${url}`, preview: url };
}

export function network(host: string): PermissionRequest {
  return {
    tool: "bash",
    readOnly: false,
    target: { kind: "network", host, port: 443 },
    title: `Connect to ${host}`,
    preview: host,
  };
}

export function input(tool: string, readOnly = false): PermissionRequest {
  return { tool, readOnly, target: { kind: "input" }, title: tool, preview: "{}" };
}

export const rule = (effect: Rule["effect"], pattern: string, source: Rule["source"] = "project"): Rule => ({
  effect,
  pattern,
  source,
  ...(source === "project" ? { file: `${ROOT}/.garuda/settings.json` } : {}),
});

export function policyWith(patch: Partial<TeamPolicy>): TeamPolicy {
  return { ...emptyTeamPolicy(), ...patch };
}

export const MANAGED = { source: "managed-policy" as const, file: "/etc/garuda/policy.json" };
export const USER = { source: "user-policy" as const, file: `${HOME}/.garuda/policy.json` };

export function engine(options: Partial<PermissionEngineOptions> = {}) {
  const events: PermissionAuditEvent[] = [];
  const e = createPermissionEngine({
    root: ROOT,
    home: HOME,
    sandboxAvailable: true,
    caseInsensitive: false,
    audit: (event) => events.push(event),
    ...options,
  });
  return Object.assign(e, { events });
}

/** An approver that answers from a list and remembers what it was asked. */
export function scriptedApprover(...answers: Choice[]): Approver & { asked: ApprovalRequest[] } {
  const asked: ApprovalRequest[] = [];
  return {
    asked,
    ask(request) {
      asked.push(request);
      return Promise.resolve(answers.shift() ?? "deny");
    },
  };
}
