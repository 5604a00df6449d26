// The two changes `garuda setup` makes under ~/.garuda besides saving a key: the default model
// in models.json, and forgetting a key. Each reads the file again, changes one thing, keeps
// every other, and writes the whole file atomically.
import { lstatSync, realpathSync, statSync, unlinkSync } from "node:fs";
import { writeFileAtomic } from "../files/atomicWrite.ts";
import { readCredentials, writeCredentials } from "./credentials.ts";
import { ConfigError } from "../errors/configError.ts";
import { describeIssues, parseConfigJson, readConfigText } from "./jsonFile.ts";
import { buildCatalog, findModel, type ModelsFile, modelsFileSchema } from "./modelsFile.ts";

const MODELS_FIX = "Fix it or move it aside, then run `garuda setup` again";

/** A symbolic link (a dotfiles manager's) is written through, so the link stays a link. */
function writeTarget(path: string): string {
  try {
    return lstatSync(path).isSymbolicLink() ? realpathSync(path) : path;
  } catch {
    return path;
  }
}

function existingMode(path: string): number | undefined {
  try {
    return statSync(path).mode & 0o777;
  } catch {
    return undefined;
  }
}

type ModelEntry = NonNullable<ModelsFile["models"]>[string];

/**
 * The text models.json will have with `spec` as its default: the file parsed, `default` set,
 * every other field kept. `entry` (limits a server reported) is added under "models" unless
 * the file has an entry for `spec` already. A file that is not valid JSON or not a valid
 * models.json is an error naming it, and is never replaced. Undefined when nothing changes.
 */
export function modelsFileWithDefault(path: string, spec: string, entry?: ModelEntry): string | undefined {
  const text = readConfigText(path);
  let data: Record<string, unknown> = {};
  if (text !== undefined) {
    const parsed = parseConfigJson(path, text, MODELS_FIX);
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
      throw new ConfigError(path, "must be a JSON object", MODELS_FIX);
    }
    data = parsed as Record<string, unknown>;
  }
  const models =
    typeof data.models === "object" && data.models !== null ? (data.models as Record<string, unknown>) : {};
  const addEntry = entry !== undefined && !Object.hasOwn(models, spec);
  if (text !== undefined && data.default === spec && !addEntry) return undefined;
  const next = { ...data, default: spec, ...(addEntry && { models: { ...models, [spec]: entry } }) };
  const result = modelsFileSchema.safeParse(next);
  if (!result.success) throw new ConfigError(path, `is not valid (${describeIssues(result.error)})`, MODELS_FIX);
  // The new default must name a model of a known provider.
  findModel(buildCatalog(path, result.data), spec);
  return `${JSON.stringify(next, null, 2)}\n`;
}

/** Sets `default` in models.json (see modelsFileWithDefault). Returns false when nothing changed. */
export function setDefaultModel(path: string, spec: string, entry?: ModelEntry): boolean {
  const content = modelsFileWithDefault(path, spec, entry);
  if (content === undefined) return false;
  const target = writeTarget(path);
  writeFileAtomic(target, content, { mode: existingMode(target) ?? 0o644, dirMode: 0o700 });
  return true;
}

/**
 * Removes one key from ~/.garuda/credentials and keeps the others; removing the last key
 * removes the file. "absent" when the file does not hold that key.
 */
export function forgetCredential(path: string, name: string): "removed" | "removed-file" | "absent" {
  const credentials = readCredentials(path);
  if (credentials === undefined || !Object.hasOwn(credentials, name)) return "absent";
  const { [name]: _removed, ...rest } = credentials;
  if (Object.keys(rest).length === 0) {
    unlinkSync(path);
    return "removed-file";
  }
  writeCredentials(path, rest);
  return "removed";
}
