// Path patterns in rules. Globs (Bun.Glob: `*`, `**`, `?`, `[…]`, `{a,b}`; `*` matches dotfiles
// too, so a denial cannot be dodged by a leading dot), anchored as follows:
//   src/**, ./src/a.ts, ./README.md   relative to the project root (`./` anchors a bare name)
//   .env, *.pem                       no slash: a file or folder of that name at any depth in the root
//   ~/.config/**                      relative to the home folder
//   /etc/**, //etc/**                 absolute (`//` is accepted for Claude Code's absolute form)
// Relative patterns never match outside the root. A pattern that names a folder also covers
// everything inside it (`edit(build)` covers build/out.js). Case-insensitive where the file
// system usually is (macOS, Windows).
import { isAbsolute, relative, resolve, sep } from "node:path";

export interface PathContext {
  root: string;
  home: string;
  caseInsensitive: boolean;
  /**
   * The session's other project folders (an editor's additionalDirectories), absolute and real:
   * treated as the root is for reads and writes; rule patterns stay anchored at the root.
   */
  extraRoots?: readonly string[];
}

/** A request path made absolute against the root, without `..` or duplicate slashes. */
export function absolutePath(path: string, root: string): string {
  return resolve(root, path);
}

/** The path relative to the root when it is inside it (the root itself is ""), else undefined. */
export function insideRoot(absPath: string, root: string): string | undefined {
  const rel = relative(root, absPath);
  if (rel === "") return "";
  if (rel.startsWith("..") || isAbsolute(rel)) return undefined;
  return sep === "/" ? rel : rel.split(sep).join("/");
}

/** Whether the path is inside the root or one of the extra roots (extraRoots). */
export function insideAnyRoot(absPath: string, ctx: Pick<PathContext, "root" | "extraRoots">): boolean {
  return (
    insideRoot(absPath, ctx.root) !== undefined ||
    (ctx.extraRoots ?? []).some((extra) => insideRoot(absPath, extra) !== undefined)
  );
}

/** The path and each folder above it, nearest first (not "/" itself). */
function withAncestors(path: string): string[] {
  const out = [path];
  let current = path;
  for (;;) {
    const slash = current.lastIndexOf("/");
    if (slash <= 0) break;
    current = current.slice(0, slash);
    out.push(current);
  }
  return out;
}

function globMatch(pattern: string, path: string, caseInsensitive: boolean): boolean {
  // A leading `!` would negate the whole glob in Bun.Glob: here it is a literal character.
  const literalBang = pattern.startsWith("!") ? `\\${pattern}` : pattern;
  const p = caseInsensitive ? literalBang.toLowerCase() : literalBang;
  const s = caseInsensitive ? path.toLowerCase() : path;
  return new Bun.Glob(p).match(s);
}

/** How a pattern is anchored, after expanding `~/` and `//`. */
export type AnchoredPattern = { anchor: "absolute"; glob: string } | { anchor: "root"; glob: string };

export function anchorPattern(pattern: string, home: string): AnchoredPattern {
  let p = pattern.trim();
  if (p.endsWith("/") && p.length > 1) p = `${p}**`;
  if (p === "~") return { anchor: "absolute", glob: home };
  if (p.startsWith("~/")) return { anchor: "absolute", glob: `${home.replace(/\/+$/, "")}/${p.slice(2)}` };
  if (p.startsWith("//")) return { anchor: "absolute", glob: p.slice(1) };
  if (p.startsWith("/")) return { anchor: "absolute", glob: p };
  if (p.startsWith("./")) return { anchor: "root", glob: p.slice(2) };
  if (!p.includes("/")) return { anchor: "root", glob: `**/${p}` };
  return { anchor: "root", glob: p };
}

/** Whether a path pattern covers an absolute path (see the file comment for the anchors). */
export function matchPathPattern(pattern: string, absPath: string, ctx: PathContext): boolean {
  const anchored = anchorPattern(pattern, ctx.home);
  if (anchored.anchor === "absolute") {
    return withAncestors(absPath).some((path) => globMatch(anchored.glob, path, ctx.caseInsensitive));
  }
  const rel = insideRoot(absPath, ctx.root);
  if (rel === undefined || rel === "") return false;
  return withAncestors(rel).some((path) => globMatch(anchored.glob, path, ctx.caseInsensitive));
}

/** Escapes glob characters so a file name matches only itself (`[id].tsx`). */
export function escapeGlob(text: string): string {
  return text.replace(/[\\*?[\]{}()!]/g, (char) => `\\${char}`);
}
