// Files that hold secrets, refused for reads and writes unless an allow rule names them, and
// the places no tool may write (`.git/`, Garuda's own files). Name patterns match anywhere on
// disk, places (under the home folder, from the same list the sandbox hides) match where they
// are; neither regards case. Example env files meant to be committed (.env.example …) are not secrets.
import { insideRoot, matchPathPattern, type PathContext } from "./pathMatch.ts";
import { SECRET_NAME_PATTERNS, type SecretPlace, secretPlaceOf } from "../files/secrets.ts";

/** Globs over the absolute path (lower case): the name patterns of the one list (files/secrets.ts). */
export const SENSITIVE_PATTERNS: readonly string[] = SECRET_NAME_PATTERNS;

/** `.env.*` files that are templates, not secrets. */
const ENV_TEMPLATES = /\/\.env\.(example|sample|template|dist|defaults)$/;

const globs: readonly { pattern: string; glob: Bun.Glob }[] = SENSITIVE_PATTERNS.map((pattern) => ({
  pattern,
  glob: new Bun.Glob(pattern),
}));

/**
 * The sensitive pattern an absolute path falls under, or undefined: a name pattern, or one of
 * `places` (secretPlaces(): the home and system secrets the sandbox hides), returned as that path.
 */
export function sensitivePattern(absPath: string, places: readonly SecretPlace[] = []): string | undefined {
  const path = absPath.toLowerCase();
  const place = secretPlaceOf(path, places);
  if (place !== undefined) return place.path;
  if (ENV_TEMPLATES.test(path)) return undefined;
  return globs.find(({ glob }) => glob.match(path))?.pattern;
}

const GLOB_CHARS = /[*?[\]{}]/;

/**
 * Whether a path pattern names a sensitive file on purpose, so that an allow rule with it may
 * open that file: its last segment is written out (`read(.env)`, `read(config/dev.pem)`) or is
 * itself a sensitive pattern (`read(*.pem)`, `read(~/.ssh/**)`). A broad `read(**)` names nothing.
 */
export function namesSensitive(
  pattern: string,
  absPath: string,
  ctx: PathContext,
  places: readonly SecretPlace[] = [],
): boolean {
  if (!matchPathPattern(pattern, absPath, ctx)) return false;
  const trimmed = pattern.trim().replace(/\/+$/, "");
  const last = trimmed.slice(trimmed.lastIndexOf("/") + 1);
  if (last.length > 0 && !GLOB_CHARS.test(last)) return true;
  const expanded = trimmed.startsWith("~/") ? `${ctx.home}/${trimmed.slice(2)}` : `/${trimmed.replace(/^\/+/, "")}`;
  return sensitivePattern(expanded, places) !== undefined;
}

/** A path segment `.git` (the folder or a worktree's `.git` file), anywhere. */
export function isGitPath(absPath: string): boolean {
  return absPath.toLowerCase().split("/").includes(".git");
}

/** Garuda's own files under ~/.garuda (policy, trust, credentials, sessions, audit …). */
export function isGarudaPath(absPath: string, home: string): boolean {
  return insideRoot(absPath, `${home.replace(/\/+$/, "")}/.garuda`) !== undefined;
}
