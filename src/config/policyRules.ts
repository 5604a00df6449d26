// The rules one policy file makes, each naming its source and file: `permissions` as written,
// `disallowedCommands` as `bash(…)` denials, `denyPaths` as `read(…)` and `edit(…)` denials,
// `network.blockedHosts` as `network(…)` and `web_fetch(…)` denials, `network.allow` as
// `network(…)` allows (presets expanded).
import type { PolicyOrigin } from "../permission/teamPolicy.ts";
import type { Effect, Rule } from "../permission/types.ts";
import type { PolicyFile } from "./policySchema.ts";
import { NETWORK_PRESETS } from "./networkPresets.ts";

export function policyFileRules(file: PolicyFile, origin: PolicyOrigin): Rule[] {
  const rule = (effect: Effect, pattern: string): Rule => ({
    effect,
    pattern,
    source: origin.source,
    file: origin.file,
  });
  const rules: Rule[] = [];
  for (const command of file.disallowedCommands ?? []) rules.push(rule("deny", `bash(${command})`));
  for (const path of file.denyPaths ?? []) rules.push(rule("deny", `read(${path})`), rule("deny", `edit(${path})`));
  for (const host of file.network?.blockedHosts ?? [])
    rules.push(rule("deny", `network(${host})`), rule("deny", `web_fetch(${host})`));
  for (const pattern of file.permissions?.deny ?? []) rules.push(rule("deny", pattern));
  for (const pattern of file.permissions?.ask ?? []) rules.push(rule("ask", pattern));
  for (const pattern of file.permissions?.allow ?? []) rules.push(rule("allow", pattern));
  for (const host of (file.network?.allow ?? []).flatMap((entry) => NETWORK_PRESETS[entry] ?? [entry]))
    rules.push(rule("allow", `network(${host})`));
  return rules;
}
