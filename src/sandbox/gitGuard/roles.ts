// What each folder of a project tree is to git, for the git guard's watch (watch.ts): a project
// folder, a git folder or a part of one; which of a folder's children are watched, and which entry
// names can make a project folder a repository.

/** What a folder is to git: project folder, git folder, or a part of one. */
export type Role = "tree" | "git" | "hooks" | "modules" | "module" | "worktrees" | "worktree";

/** Entry names that make a project folder a repository (or change which one), lower case. */
const MARKER_NAMES = new Set([".git", "head", "objects", "refs", "commondir", "config"]);
/** Code points HFS+ ignores in names (git's is_hfs_dotgit): `.g\u200cit` is `.git` there. */
const IGNORABLE = /[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/g;
/** Whether `name` may be, to some file system, one of the marker names (case-insensitive ones too). */
export const isMarkerName = (name: string) => MARKER_NAMES.has(name.replace(IGNORABLE, "").toLowerCase());
/** Inside a submodule's git folder: what is never watched. */
const GIT_DATA = new Set([
  "objects",
  "refs",
  "logs",
  "info",
  "lfs",
  "rr-cache",
  "rebase-merge",
  "rebase-apply",
  "sequencer",
  "branches",
  "description",
]);

/** The role of a child folder, or undefined when it is not watched. */
export function childRole(parent: Role, name: string): Role | undefined {
  switch (parent) {
    case "tree":
      return name === ".git" ? "git" : "tree";
    case "git":
    case "module":
      if (name === "hooks") return "hooks";
      if (name === "modules") return "modules";
      if (name === "worktrees") return "worktrees";
      return parent === "module" && !GIT_DATA.has(name) ? "module" : undefined;
    case "modules":
      return "module";
    case "worktrees":
      return "worktree";
    default:
      return undefined;
  }
}
