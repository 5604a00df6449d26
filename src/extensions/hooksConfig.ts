// hooks.json: the user's (~/.garuda/hooks.json, trusted) and the project's
// (<root>/.garuda/hooks.json, run only with the user's yes pinned to the file's SHA-256 in
// trust.json). Strict schema; `tools` holds permission rule patterns (empty or absent: every tool).
import { join } from "node:path";
import { z } from "zod";
import { ConfigError } from "../errors/configError.ts";
import { describeIssues, parseConfigJson, readConfigText } from "../config/jsonFile.ts";
import type { GarudaPaths } from "../config/paths.ts";
import { APPROVE_IN_CHAT, sha256Hex, TrustStore, trustRoot } from "../config/trust.ts";
import { ruleProblem } from "../permission/ruleSyntax.ts";
import { oneLine } from "../text/visible.ts";

export type HookEventName = "preToolUse" | "postToolUse";
const HOOK_EVENTS: readonly HookEventName[] = ["preToolUse", "postToolUse"];

const DEFAULT_HOOK_TIMEOUT_MS = 60_000;
const MAX_HOOK_TIMEOUT_MS = 600_000;

const rulePattern = z.string().superRefine((text, context) => {
  const problem = ruleProblem(text);
  if (problem) context.addIssue({ code: "custom", message: problem });
});

const hookSchema = z.strictObject({
  tools: z.array(rulePattern).optional(),
  command: z.string().refine((command) => command.trim().length > 0, "must not be empty"),
  timeoutMs: z.number().int().positive().max(MAX_HOOK_TIMEOUT_MS).optional(),
});

const hooksFileSchema = z.strictObject({
  hooks: z
    .strictObject({ preToolUse: z.array(hookSchema).optional(), postToolUse: z.array(hookSchema).optional() })
    .optional(),
});

export interface HookDefinition {
  event: HookEventName;
  /** Rule patterns; empty = every tool. */
  tools: string[];
  command: string;
  timeoutMs: number;
  source: "user" | "project";
  /** The hooks.json it came from. */
  file: string;
}

/** The project's hooks file as found, whether or not it may run. */
export interface ProjectHooks {
  file: string;
  /** SHA-256 of the file's bytes: the value to pin. */
  hash: string;
  trusted: boolean;
  hooks: HookDefinition[];
}

export interface LoadedHooks {
  /** The hooks that run: the user's, then the project's when approved. */
  hooks: HookDefinition[];
  /** The project's file, when there is one (for the consent question). */
  project: ProjectHooks | undefined;
  notices: string[];
}

export interface LoadHooksOptions {
  root: string;
  paths: GarudaPaths;
  /** Defaults to the store at paths.trust. */
  trust?: TrustStore;
}

const projectHooksFile = (root: string): string => join(root, ".garuda", "hooks.json");

/** Parses hooks.json text into definitions; a ConfigError names the file and the problem. */
function parseHooksFile(file: string, text: string, source: "user" | "project"): HookDefinition[] {
  const fix =
    'Fix the file; the form is {"hooks": {"preToolUse": [{"tools": ["bash(git ' +
    'push*)"], "command": "…", "timeoutMs": 10000}], "postToolUse": […]}}';
  const result = hooksFileSchema.safeParse(parseConfigJson(file, text));
  if (!result.success) throw new ConfigError(file, describeIssues(result.error, { nameUnknownKeys: true }), fix);
  const definitions: HookDefinition[] = [];
  for (const event of HOOK_EVENTS) {
    for (const hook of result.data.hooks?.[event] ?? []) {
      definitions.push({
        event,
        tools: hook.tools ?? [],
        command: hook.command,
        timeoutMs: hook.timeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS,
        source,
        file,
      });
    }
  }
  return definitions;
}

/**
 * Loads the user's hooks and the project's. The user's file, when invalid, throws a ConfigError
 * naming it; the project's is only a notice (its hooks could not run before a yes anyway, and a
 * project must not be able to stop every session in its folder). Project hooks without a
 * matching pin are left out, with a notice that says how to approve them.
 */
export function loadHooks(options: LoadHooksOptions): LoadedHooks {
  const userText = readConfigText(options.paths.hooks);
  const user = userText === undefined ? [] : parseHooksFile(options.paths.hooks, userText, "user");
  const root = trustRoot(options.root);
  const file = projectHooksFile(root);
  const text = readConfigText(file);
  if (text === undefined) return { hooks: user, project: undefined, notices: [] };

  let definitions: HookDefinition[];
  try {
    definitions = parseHooksFile(file, text, "project");
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return {
      hooks: user,
      project: undefined,
      notices: [`${oneLine(error.message, 600)} The project's hooks will not run until the file is fixed.`],
    };
  }
  const trust = options.trust ?? new TrustStore(options.paths.trust);
  const hash = sha256Hex(text);
  const trusted = definitions.length === 0 || trust.isTrusted("hooks", root, hash);
  const project: ProjectHooks = { file, hash, trusted, hooks: definitions };
  if (trusted) return { hooks: [...user, ...definitions], project, notices: [] };

  const changed = trust.pinned("hooks", root) !== undefined;
  const count = `${definitions.length} hook${definitions.length === 1 ? "" : "s"}`;
  const notices = [
    ...trust.notices(),
    `${oneLine(file, 300)} ` +
      `${changed ? "changed since you approved it" : "has not been approved"}, so its ` +
      `${count} will not run. To approve them, run \`garuda\` (the terminal chat) ` +
      `${APPROVE_IN_CHAT}`,
  ];
  return { hooks: user, project, notices };
}

/** The text for the consent question: every project hook with its event, tools and command. */
export function describeProjectHooks(project: ProjectHooks): string {
  const lines = [
    `${oneLine(project.file, 300)} wants to run these commands around tool calls ` +
      `(in the OS sandbox when there is one, with your permissions):`,
  ];
  for (const hook of project.hooks) {
    const tools = hook.tools.length > 0 ? hook.tools.map((tool) => oneLine(tool, 80)).join(", ") : "every tool";
    lines.push(`  • ${hook.event} on ${tools} (timeout ${hook.timeoutMs / 1000}s): ${oneLine(hook.command, 300)}`);
  }
  return lines.join("\n");
}

/** Records the user's yes to the project's hooks file as loaded. */
export function approveProjectHooks(project: ProjectHooks, trust: TrustStore, root: string): void {
  trust.pin("hooks", root, project.hash);
}
