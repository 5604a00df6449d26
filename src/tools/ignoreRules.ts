// .gitignore rules as layers, one per folder that has a .gitignore (plus .git/info/exclude at
// the root). A deeper layer wins over a shallower one, so `!keep.log` in a subfolder re-includes
// what the root ignored, as git does. Rules apply whether or not the folder is a git repository.
// Patterns match case-sensitively, as git's do unless the repository's core.ignorecase says
// otherwise (git sets it at init on a case-insensitive file system): the `ignore` package's
// default is case-insensitive, which hid every `*.S` file of a tree whose .gitignore has `*.s`.
import { isAbsolute, join, relative } from "node:path";
import ignore, { type Ignore } from "ignore";
import { loadChecked } from "./checkedFile.ts";

export interface IgnoreLayer {
  /** The folder the rules are relative to. */
  dir: string;
  rules: Ignore;
}

/** A .gitignore is never this big; a bigger file is not one to honour. */
export const MAX_IGNORE_BYTES = 1024 * 1024;

/** The file's text when it is a regular file at that real path (no link, no pipe), else undefined. */
function readRules(file: string): string | undefined {
  try {
    const loaded = loadChecked(file, MAX_IGNORE_BYTES);
    return loaded.kind === "text" ? loaded.text : undefined;
  } catch {
    return undefined;
  }
}

/** The layer of a folder whose .gitignore holds `text`. */
export function layerOf(dir: string, text: string, ignoreCase: boolean): IgnoreLayer {
  return { dir, rules: ignore({ ignorecase: ignoreCase }).add(text) };
}

/** The layer of one folder's .gitignore (`dir` a real path), or undefined when it has none. */
export function folderLayer(dir: string, ignoreCase: boolean): IgnoreLayer | undefined {
  const text = readRules(join(dir, ".gitignore"));
  return text === undefined ? undefined : layerOf(dir, text, ignoreCase);
}

/** The repository's git folder: `<root>/.git`, or where a `.git` file (a worktree, a submodule) points. */
function gitFolder(root: string): string {
  const pointer = readRules(join(root, ".git"))
    ?.match(/^gitdir: (.+)$/m)?.[1]
    ?.trim();
  if (pointer === undefined) return join(root, ".git");
  const dir = isAbsolute(pointer) ? pointer : join(root, pointer);
  // A linked worktree keeps its config in the common folder.
  const common = readRules(join(dir, "commondir"))?.trim();
  return common === undefined ? dir : isAbsolute(common) ? common : join(dir, common);
}

/**
 * Whether the repository at `root` matches ignore rules without regard to case: its config's
 * core.ignorecase, false when unset (git's default) or when there is no repository.
 */
export function repositoryIgnoresCase(root: string): boolean {
  const config = readRules(join(gitFolder(root), "config"));
  if (config === undefined) return false;
  let inCore = false;
  let value = false;
  for (const raw of config.split("\n")) {
    const line = raw.replace(/[;#].*$/, "").trim();
    const section = /^\[\s*([^\]\s"]+)/.exec(line);
    if (section) inCore = section[1]?.toLowerCase() === "core";
    else if (inCore) {
      const setting = /^ignorecase\s*(?:=\s*(\S+))?$/i.exec(line);
      // A bare key is true in git's config syntax.
      if (setting) value = ["true", "yes", "on", "1", undefined].includes(setting[1]?.toLowerCase());
    }
  }
  return value;
}

/**
 * The layers that apply to `base` from the folders above it, from the root down to base's
 * parent: .git/info/exclude and each .gitignore on the way. Empty when base is outside the root.
 */
export function ancestorLayers(root: string, base: string, ignoreCase: boolean): IgnoreLayer[] {
  const rel = relative(root, base);
  if (rel.startsWith("..") || rel.startsWith("/")) return [];
  const layers: IgnoreLayer[] = [];
  const exclude = readRules(join(root, ".git", "info", "exclude"));
  if (exclude !== undefined) layers.push({ dir: root, rules: ignore({ ignorecase: ignoreCase }).add(exclude) });
  if (rel === "") return layers;
  // The root and every folder between it and base (base's own .gitignore is read by the walk).
  const folders = [root];
  for (const part of rel.split("/").slice(0, -1)) folders.push(join(folders[folders.length - 1] as string, part));
  for (const dir of folders) {
    const layer = folderLayer(dir, ignoreCase);
    if (layer) layers.push(layer);
  }
  return layers;
}

/** Whether the layers ignore this path (deepest layer with an opinion wins). */
export function isIgnored(layers: readonly IgnoreLayer[], abs: string, isDir: boolean): boolean {
  for (let i = layers.length - 1; i >= 0; i--) {
    const layer = layers[i] as IgnoreLayer;
    // The walk goes downward, so a path under the layer's folder is a plain suffix of it (tested
    // without making a string: this runs for every path a search lists).
    const under = abs.charCodeAt(layer.dir.length) === 47 && abs.startsWith(layer.dir);
    const rel = under ? abs.slice(layer.dir.length + 1) : relative(layer.dir, abs);
    if (rel === "" || rel.startsWith("..")) continue;
    const result = layer.rules.test(isDir ? `${rel}/` : rel);
    if (result.ignored) return true;
    if (result.unignored) return false;
  }
  return false;
}
