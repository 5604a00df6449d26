// The models a user can switch a session to, now: the built-in catalog and ~/.garuda/models.json,
// each either usable (its provider has a key, or needs none, and the team policy allows it) or
// not, with the reason. The files are read again on every call, so a key added with `garuda
// setup` shows without a restart. The editor's model picker lists the usable ones; a switch to
// another gets its reason.
import type { ModelInfo } from "../model/catalog.ts";
import type { TeamPolicy } from "../permission/teamPolicy.ts";
import { findModel, loadModelCatalog, type ModelCatalog, modelsKnownAhead, providerKeyNames } from "./modelsFile.ts";
import { credentialsReader, type ModelSetupContext, providerCredential } from "./modelSetup.ts";
import { isModelAllowed } from "./policy.ts";

export type ModelChoice = { info: ModelInfo; usable: true } | { info: ModelInfo; usable: false; reason: string };

export interface ModelChoices {
  /** Every model of the catalog (built in and models.json), in the catalog's order. */
  choices: ModelChoice[];
  /**
   * The model a name means (a spec, `anthropic/<id>`, or a family such as "sonnet"); undefined for
   * a name of Anthropic's that the catalog does not list. A server's models (Ollama's, OpenRouter's)
   * are not listed ahead, so any name of such a provider is taken.
   */
  resolve(name: string): ModelInfo | undefined;
}

function choiceOf(
  info: ModelInfo,
  catalog: ModelCatalog,
  ctx: Pick<ModelSetupContext, "keys">,
  policy: TeamPolicy,
  file: () => Record<string, string> | undefined,
): ModelChoice {
  const provider = catalog.providers[info.provider];
  if (!provider) return { info, usable: false, reason: `its provider "${info.provider}" is not configured` };
  if (!isModelAllowed(policy, info.spec)) {
    return {
      info,
      usable: false,
      reason: `the team policy (${policy.allowedModels?.origin.file ?? "allowedModels"}) does not allow it`,
    };
  }
  if (provider.apiKeyEnv !== undefined && !providerCredential(provider, ctx, file)) {
    return { info, usable: false, reason: `Garuda has no key for it (${provider.apiKeyEnv}); run \`garuda setup\`` };
  }
  return { info, usable: true };
}

/** Reads models.json and the credentials now; `policy` is the session's team policy. */
export function listModelChoices(ctx: ModelSetupContext, policy: TeamPolicy): ModelChoices {
  const catalog = loadModelCatalog(ctx.paths.models);
  ctx.keys.take(ctx.env, providerKeyNames(catalog));
  const file = credentialsReader(ctx.paths.credentials);
  const choices = [...catalog.models.values()].map((info) => choiceOf(info, catalog, ctx, policy, file));
  return {
    choices,
    resolve(name) {
      let info: ModelInfo;
      try {
        info = findModel(catalog, name.trim());
      } catch {
        return undefined;
      }
      // A server's own models are not listed ahead: its names are taken as given.
      if (!catalog.models.has(info.spec)) return modelsKnownAhead(catalog, info.provider) ? undefined : info;
      return catalog.models.get(info.spec) as ModelInfo;
    },
  };
}
