// Hooks around tool calls. preToolUse runs after a call is described and before the permission
// check: exit 0 lets the call go on to that check, exit 2 blocks it with the hook's stderr as the
// reason the model reads, anything else (another exit code, a timeout, a crash, a command the team
// policy forbids) blocks it too and warns the user. postToolUse runs after the tool: exit 2 adds
// its stderr to the result as feedback; other failures only warn. A hook can block, never approve:
// there is no outcome that skips the permission check. Every run is audited.
import { oneLine } from "../text/visible.ts";
import { compileRules, requestFacts, ruleCovers } from "../permission/ruleMatch.ts";
import type { PathContext } from "../permission/pathMatch.ts";
import { policyViolation } from "../permission/policyCheck.ts";
import type { TeamPolicy } from "../permission/teamPolicy.ts";
import type { PermissionRequest, Rule } from "../permission/types.ts";
import type { Mode } from "../core-types/mode.ts";
import type { AuditSink, HookOutcome } from "../store/auditEvents.ts";
import { executeHook, type HookEventData, type HookExecContext, type HookExecution } from "./hookRunner.ts";
import type { HookDefinition, HookEventName } from "./hooksConfig.ts";

export { appendHookFeedback } from "../tools/toolHooks.ts";
export type { HookDefinition } from "./hooksConfig.ts";

export interface HookServices extends HookExecContext {
  home: string;
  policy: TeamPolicy;
  /** The session's mode (the policy may allow only one). */
  mode: Mode;
  audit: AuditSink;
  /** Path patterns compare case-insensitively (macOS, Windows). Default: by platform. */
  caseInsensitive?: boolean;
}

/** The call a hook is about. */
export interface HookCall {
  request: PermissionRequest;
  /** The tool's input as the model gave it. */
  input: unknown;
}

export type PreToolUseOutcome =
  | { blocked: false; warnings: string[] }
  | { blocked: true; reason: string; warnings: string[] };

export interface PostToolUseOutcome {
  /** One entry per hook that answered with exit 2; see appendHookFeedback. */
  feedback: string[];
  warnings: string[];
}

function pathContext(services: HookServices): PathContext {
  return {
    root: services.root,
    home: services.home,
    caseInsensitive: services.caseInsensitive ?? (process.platform === "darwin" || process.platform === "win32"),
  };
}

/** The hooks of this event whose `tools` patterns cover the request (deny-style: one command part suffices). */
export function matchingHooks(
  hooks: readonly HookDefinition[],
  event: HookEventName,
  request: PermissionRequest,
  ctx: PathContext,
): HookDefinition[] {
  const facts = requestFacts(request, ctx.root);
  return hooks.filter((hook) => {
    if (hook.event !== event) return false;
    if (hook.tools.length === 0) return true;
    const rules: Rule[] = hook.tools.map((pattern) => ({
      effect: "deny",
      pattern,
      source: "builtin",
      file: hook.file,
    }));
    return compileRules(rules).compiled.some((rule) => ruleCovers(rule, facts, ctx, "restrict"));
  });
}

/**
 * Why the team policy forbids running this hook, or undefined when it may run. The hook's command
 * is checked as a command of its own (tool "hook"), with the policy check every tool call gets.
 */
function policyRefusal(hook: HookDefinition, services: HookServices): string | undefined {
  const sandboxed = services.sandbox !== null;
  const request: PermissionRequest = {
    tool: "hook",
    readOnly: false,
    target: { kind: "command", command: hook.command, sandboxed },
    title: `$ ${hook.command}`,
    preview: hook.command,
  };
  const facts = requestFacts(request, services.root);
  const rules = compileRules(services.policy.rules).compiled;
  const sandboxAvailable = services.executor.sandbox.available;
  const violation = policyViolation(
    services.policy,
    rules,
    facts,
    services.mode,
    sandboxAvailable,
    pathContext(services),
  );
  if (!violation) return undefined;
  const { rule } = violation;
  return `the team policy forbids it (${rule.pattern}${rule.file ? ` in ${rule.file}` : ""})`;
}

interface HookRun {
  hook: HookDefinition;
  outcome: HookOutcome;
  execution: HookExecution | undefined;
  /** For a refused or failed hook: why, in a few words. */
  problem?: string;
}

async function runOne(
  hook: HookDefinition,
  data: HookEventData,
  call: HookCall,
  services: HookServices,
): Promise<HookRun> {
  const refusal = policyRefusal(hook, services);
  let run: HookRun;
  if (refusal) {
    run = { hook, outcome: "refused", execution: undefined, problem: refusal };
  } else {
    const execution = await executeHook(hook, data, services);
    const outcome: HookOutcome =
      execution.status === "ok"
        ? "continue"
        : execution.status === "exit2"
          ? data.event === "preToolUse"
            ? "blocked"
            : "feedback"
          : "failed";
    run = { hook, outcome, execution, ...(execution.problem ? { problem: execution.problem } : {}) };
  }
  const execution = run.execution;
  services.audit.record({
    type: "hook",
    event: data.event,
    ...(call.request.callId ? { callId: call.request.callId } : {}),
    tool: call.request.tool,
    readOnly: call.request.readOnly,
    command: hook.command,
    source: hook.source,
    outcome: run.outcome,
    ...(execution
      ? { exitCode: execution.exitCode, timedOut: execution.timedOut, durationMs: execution.durationMs }
      : {}),
    ...(run.problem ? { reason: run.problem } : execution?.stderr ? { reason: execution.stderr } : {}),
  });
  return run;
}

function hookName(hook: HookDefinition): string {
  return (
    `${hook.event} hook \`${oneLine(hook.command, 120)}\` ` +
    `(${hook.source === "user" ? "your hooks.json" : oneLine(hook.file, 200)})`
  );
}

function failureWarning(run: HookRun, consequence: string): string {
  const stderr = run.execution?.stderr ? `: ${oneLine(run.execution.stderr, 300)}` : "";
  const what = run.outcome === "refused" ? `was not run: ${run.problem}` : `failed: it ${run.problem}${stderr}`;
  return `The ${hookName(run.hook)} ${what}. ${consequence}`;
}

function eventData(event: HookEventName, call: HookCall, result?: string): HookEventData {
  return {
    event,
    tool: call.request.tool,
    ...(call.request.callId ? { callId: call.request.callId } : {}),
    input: call.input,
    target: call.request.target,
    ...(result !== undefined ? { result } : {}),
  };
}

/**
 * Runs the matching preToolUse hooks in order; the first that blocks ends the run. `blocked:
 * false` only means "go on to the permission check": a hook cannot approve a call.
 */
export async function runPreToolUse(
  hooks: readonly HookDefinition[],
  call: HookCall,
  services: HookServices,
): Promise<PreToolUseOutcome> {
  const warnings: string[] = [];
  const data = eventData("preToolUse", call);
  for (const hook of matchingHooks(hooks, "preToolUse", call.request, pathContext(services))) {
    const run = await runOne(hook, data, call, services);
    if (run.outcome === "continue") continue;
    if (run.outcome === "blocked") {
      const said = run.execution?.stderr;
      return {
        blocked: true,
        reason: said
          ? `A hook blocked this call: ${said}`
          : `A hook blocked this call (\`${oneLine(hook.command, 120)}\`) without giving a reason.`,
        warnings,
      };
    }
    // A hook stopped because the user stopped the turn did not fail: no warning for that.
    if (!services.signal?.aborted) warnings.push(failureWarning(run, "The tool call was blocked (hooks fail closed)."));
    return {
      blocked: true,
      reason:
        `A hook that checks this call ` +
        `${run.outcome === "refused" ? "was not allowed to run" : "failed"}, so the ` +
        `call was blocked. The user has been told; do not retry it unchanged.`,
      warnings,
    };
  }
  return { blocked: false, warnings };
}

/** Runs every matching postToolUse hook; exit 2 gives feedback for the model, other failures warn the user. */
export async function runPostToolUse(
  hooks: readonly HookDefinition[],
  call: HookCall,
  result: string,
  services: HookServices,
): Promise<PostToolUseOutcome> {
  const feedback: string[] = [];
  const warnings: string[] = [];
  const data = eventData("postToolUse", call, result);
  for (const hook of matchingHooks(hooks, "postToolUse", call.request, pathContext(services))) {
    const run = await runOne(hook, data, call, services);
    if (run.outcome === "feedback") {
      if (run.execution?.stderr) feedback.push(run.execution.stderr);
    } else if (run.outcome !== "continue" && !services.signal?.aborted) {
      warnings.push(failureWarning(run, "The tool had already run; its result stands."));
    }
  }
  return { feedback, warnings };
}
