// Which model a continued session goes on with. Only compose/prepare.ts uses it.
import { type ModelSetupContext, type PreparedModel, prepareModel } from "../config/modelSetup.ts";
import { checkModelAllowed } from "../config/policy.ts";
import { messageOf } from "../errors/caught.ts";
import type { TeamPolicy } from "../permission/teamPolicy.ts";
import type { RuntimeOptions } from "../runtime/runtimeOptions.ts";
import { sessionChoices } from "../store/sessionChoices.ts";
import { readSession } from "../store/sessionFile.ts";

/**
 * A resumed session goes on with the model it used last (its session file's model records), unless
 * --model names one. When that model cannot be used now (no key, the team policy), the session goes
 * on with the usual choice, and a notice says so.
 */
export function resumedModelChoice(
  resume: RuntimeOptions["resume"],
  options: ModelSetupContext,
  policy: TeamPolicy,
): { prepared?: PreparedModel; notice?: string } | undefined {
  if (resume === undefined || options.modelFlag) return undefined;
  let spec: string | undefined;
  try {
    spec = sessionChoices(typeof resume === "string" ? readSession(resume).records : resume.data.records).model;
  } catch {
    return undefined;
  }
  if (spec === undefined) return undefined;
  try {
    const prepared = prepareModel({ paths: options.paths, env: options.env, keys: options.keys, modelFlag: spec });
    checkModelAllowed(policy, prepared.model.spec);
    return { prepared };
  } catch (error) {
    return {
      notice:
        `This conversation used ${spec}, which cannot be used now ` +
        `(${messageOf(error)}); it goes on with the model set up for new sessions.`,
    };
  }
}
