// The user's hooks (extensions/hooks.ts) as the ToolHooks the tool registry is given
// (tools/toolHooks.ts), so tools/ never imports extensions/. Only compose/prepare.ts uses it.
import type { Mode } from "../core-types/mode.ts";
import { runPostToolUse, runPreToolUse } from "../extensions/hooks.ts";
import type { loadHooks } from "../extensions/hooksConfig.ts";
import type { SandboxSpec } from "../sandbox/types.ts";
import type { ToolHooks } from "../tools/toolHooks.ts";

/**
 * Hooks run in the build-mode sandbox in every mode: they are the user's (or an approved
 * project's) own automation, and one that writes a log in the project must not block every call
 * in plan mode. The mode still reaches their policy checks.
 */
export function hooksAdapter(
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
