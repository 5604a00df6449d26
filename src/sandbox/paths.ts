// Which paths a sandboxed command may write, must not change, and must not read: the spec plus
// the defaults every sandbox gets. Pure over (spec, fs); both launchers (bwrap.ts, seatbelt.ts)
// turn the result into their own terms.
import { basename, dirname, join, resolve } from "node:path";
import { HOME_SECRETS, HOME_STORES, SYSTEM_SECRETS } from "../files/secrets.ts";
import { type FsView, type LinkFsView, byDepth, listDir, readLink } from "./fsView.ts";
import { PACKAGE_CACHES, aroundHome, homeHolds } from "./homeHolds.ts";
import { isInside } from "../files/isInside.ts";
import { splitAroundPathFolders } from "./pathFolderSplit.ts";
import { secretLinkTargets } from "./secretLinks.ts";
import type { SandboxSpec } from "./types.ts";

/** Unreadable: credentials of common tools and Garuda's own secrets (the one list, shared with the file tools). */
const HOME_DENY_READ: readonly string[] = [...HOME_SECRETS, ...HOME_STORES];

/** Host sockets that would hand out the machine (a path-based socket stays connectable on a read-only mount). */
const SYSTEM_DENY_READ: readonly string[] = SYSTEM_SECRETS;

export type { LinkFsView } from "./fsView.ts";

export interface ProtectedPath {
  /** Absolute, symlinks in existing parents resolved. */
  path: string;
  /** Held as a folder when it does not exist yet. */
  dir: boolean;
}

export interface SandboxPaths {
  /** Existing folders the command may write (root unless read-only, caches, writePaths, git dirs), parents first. */
  writable: string[];
  /** Read-only although inside a writable folder; may not exist yet. */
  protected: ProtectedPath[];
  /** Unreadable; may not exist. */
  denyRead: string[];
  /**
   * Extra writable folders (writePaths, package caches) left out of `writable`: they reach their
   * target through a symlink in a folder sandboxed commands can write, so a command could have
   * planted it. Callers should show these (a notice): the user configured them writable.
   */
  refused: RefusedPath[];
}

export interface RefusedPath {
  /** The path as configured (a writePath as written in the spec, or a package cache). */
  path: string;
  /** The symlink on the way, inside a folder sandboxed commands can write. */
  link: string;
}

/** An absolute path with the symlinks of its existing part resolved (macOS /tmp → /private/tmp). */
export function resolveLoose(path: string, fs: FsView): string {
  const absolute = resolve(path);
  let existing = absolute;
  const rest: string[] = [];
  while (existing !== "/" && fs.kind(existing) === "missing") {
    rest.unshift(basename(existing));
    existing = dirname(existing);
  }
  const real = fs.realpath(existing);
  return rest.length === 0 ? real : join(real, ...rest);
}

/** Where a configured writePath points, lexically: `~` is HOME, a relative path is under the root. */
export function lexicalPath(path: string, root: string, home: string): string {
  if (path === "~" || path.startsWith("~/")) return join(home, path.slice(1));
  return resolve(root, path);
}

/** Link hops followed before giving up (the kernel's limit is 40). */
const MAX_LINK_HOPS = 40;

type Walk = { real: string } | { link: string };

/**
 * `path` (absolute, normalized) resolved one component at a time, following symlinks by hand
 * because realpath would hide the links on the way. Stops at the first symlink inside one of
 * `writable`: a sandboxed command could have made it (`rm -rf cache && ln -s ~ cache`). Links
 * elsewhere (/home → /usr/home, a project root that is a link) are followed, hop by hop, so a
 * link of theirs that leads through a writable folder is caught too. A missing component ends the
 * walk: the rest is not there to mount.
 */
function walkPath(path: string, writable: string[], fs: LinkFsView): Walk {
  const pending = path.split("/").filter(Boolean);
  let current = "/";
  let hops = 0;
  while (pending.length > 0) {
    const name = pending.shift() as string;
    if (name === ".") continue;
    if (name === "..") {
      current = dirname(current); // `current` is real here, so its parent is the real ".."
      continue;
    }
    const next = join(current, name);
    const kind = fs.kind(next);
    if (kind === "missing") return { real: next }; // nothing there to mount
    if (kind !== "symlink") {
      current = next;
      continue;
    }
    if (writable.some((w) => isInside(next, w))) return { link: next };
    if (++hops > MAX_LINK_HOPS) return { real: next }; // a loop: the kernel refuses it too, and a link is never mounted
    const target = readLink(next, fs);
    if (target === undefined) {
      current = fs.realpath(next); // no readlink here: trust this one hop as a whole
      continue;
    }
    if (target.startsWith("/")) current = "/";
    pending.unshift(...target.split("/").filter(Boolean));
  }
  return { real: current };
}

/**
 * Where git puts a linked worktree's or a submodule's git folder: `<repo>/.git/worktrees/<name>`,
 * `<repo>/.git/modules/<path>`.
 */
const LINKED_GIT_DIR = /\/\.git\/(?:worktrees|modules)\/[^/]+\//;

/** The real git folders of a worktree or submodule whose `.git` is a file (`gitdir: …`). */
export function linkedGitFolders(root: string, fs: FsView): { gitDir: string; commonDir: string } | undefined {
  const text = fs.readText(join(root, ".git"));
  const match = text ? /^gitdir:\s*(.+?)\s*$/m.exec(text) : null;
  if (!match?.[1]) return undefined;
  const gitDir = fs.realpath(resolve(root, match[1]));
  if (fs.kind(gitDir) !== "dir") return undefined;
  // A sandboxed command can write a `.git` file where there was none (`gitdir: /home/you`), so
  // only the shapes git itself makes are honoured: a worktree's or a submodule's folder inside
  // another repository's .git. Anything else (e.g. --separate-git-dir) stays read-only.
  if (!LINKED_GIT_DIR.test(`${gitDir}/`)) return undefined;
  const common = fs.readText(join(gitDir, "commondir"))?.trim();
  const commonDir = common ? fs.realpath(resolve(gitDir, common)) : gitDir;
  return { gitDir, commonDir: fs.kind(commonDir) === "dir" ? commonDir : gitDir };
}

interface GitPaths {
  writable: string[];
  protected: string[];
}

/** In a git folder, the files that make git take config and hooks from elsewhere, held read-only where they exist. */
const GIT_REDIRECTS = ["commondir", "config.worktree"];
/** How deep submodule names (`modules/a/b`) and nested submodules are followed. */
const MODULE_DEPTH = 6;

const existing = (paths: string[], fs: FsView) => paths.filter((path) => fs.kind(path) !== "missing");

/** A submodule's git folder: `<repo>/.git/modules/<path>`. */
const MODULE_GIT_DIR = /\/\.git\/modules\//;

/**
 * Inside `.git`: the linked worktrees' redirect files, and each submodule's git folder's hooks
 * and redirect files. The folders stay writable (git worktree add, submodule fetch, gc), and so
 * does a submodule's config, which `git submodule update` writes (core.worktree): the git guard
 * puts it back as it was the moment a command adds anything to it that runs a program (gitGuard/guard.ts).
 */
function nestedGitHolds(dotGit: string, fs: LinkFsView): string[] {
  const held: string[] = [];
  for (const name of listDir(join(dotGit, "worktrees"), fs)) {
    held.push(
      ...existing(
        [...GIT_REDIRECTS, "gitdir"].map((file) => join(dotGit, "worktrees", name, file)),
        fs,
      ),
    );
  }
  const modules = (dir: string, depth: number): void => {
    if (depth > MODULE_DEPTH) return;
    for (const name of listDir(dir, fs)) {
      const entry = join(dir, name);
      if (fs.kind(entry) !== "dir") continue;
      // A submodule's git folder has a HEAD; a folder without one is part of a longer name (a/b).
      if (fs.kind(join(entry, "HEAD")) === "file") {
        held.push(
          join(entry, "hooks/"),
          ...existing(
            GIT_REDIRECTS.map((file) => join(entry, file)),
            fs,
          ),
        );
        modules(join(entry, "modules"), depth + 1);
      } else modules(entry, depth + 1);
    }
  };
  modules(join(dotGit, "modules"), 0);
  return held;
}

/**
 * `.git/hooks` and `.git/config` stay read-only (hooks and config run code on the host), and so do
 * the files that send git elsewhere (commondir, config.worktree) where they exist, in `.git`, in
 * its linked worktrees' folders and in its submodules' git folders (with their hooks);
 * the rest stays writable so commit, fetch, branch, worktree add and submodule update work. What
 * does not exist yet cannot be held: the git guard (gitGuard/guard.ts) watches for it while commands run. A
 * `.git` file (worktree, submodule) points elsewhere: that git folder becomes writable with the
 * same exceptions, and the `.git` file itself read-only. No `.git` at all: `.git` is held as an
 * empty read-only folder, so a command cannot make a repository whose hooks and config git on
 * the host would run later; `git init` is for outside the sandbox (an empty `.git` folder is
 * left behind, which git ignores).
 */
function gitPaths(root: string, fs: LinkFsView, nested = false): GitPaths {
  const dotGit = join(root, ".git");
  const kind = fs.kind(dotGit);
  if (kind === "dir") {
    const redirects = existing(
      GIT_REDIRECTS.map((name) => join(dotGit, name)),
      fs,
    );
    return {
      writable: [],
      protected: [join(dotGit, "hooks/"), join(dotGit, "config"), ...redirects, ...nestedGitHolds(dotGit, fs)],
    };
  }
  if (kind === "missing") return { writable: [], protected: [`${dotGit}/`] };
  if (kind !== "file") return { writable: [], protected: [dotGit] };
  const linked = linkedGitFolders(root, fs);
  if (!linked) return { writable: [], protected: [dotGit] };
  const { gitDir, commonDir } = linked;
  const held = [
    dotGit,
    join(commonDir, "hooks/"),
    ...existing(
      GIT_REDIRECTS.map((name) => join(gitDir, name)),
      fs,
    ),
  ];
  // A nested submodule's config is the guard's to keep (see nestedGitHolds); the root's own is held.
  if (!nested || !MODULE_GIT_DIR.test(commonDir)) held.push(join(commonDir, "config"));
  if (gitDir !== commonDir) held.push(join(gitDir, "config.worktree"));
  return { writable: [...new Set([gitDir, commonDir])], protected: held };
}

/**
 * A nested repository's files that make git run code (gitGuard/guard.ts knows these repositories: the
 * user's own, in folders under the root), held read-only as the root's are. Unlike the root, a
 * repository that is gone gets no placeholder: there is nothing to hold.
 */
function repoHolds(dir: string, fs: LinkFsView): string[] {
  const dotGit = join(dir, ".git");
  const kind = fs.kind(dotGit);
  if (kind === "missing") {
    // A bare repository: the folder is the git folder.
    if (fs.kind(join(dir, "HEAD")) === "missing") return [];
    return [
      join(dir, "config"),
      join(dir, "hooks/"),
      ...existing(
        GIT_REDIRECTS.map((name) => join(dir, name)),
        fs,
      ),
    ];
  }
  return gitPaths(dir, fs, true).protected;
}

function dedupeNested(paths: string[]): string[] {
  const sorted = [...new Set(paths)].sort(byDepth);
  return sorted.filter((path, i) => !sorted.slice(0, i).some((outer) => outer !== path && isInside(path, outer)));
}

interface Extras {
  /** Real paths of the extra folders that passed the walk. */
  accepted: string[];
  refused: RefusedPath[];
}

/**
 * Package caches and writePaths, each walked against every folder a sandboxed command may write:
 * the root (in plan mode too: build mode could write it earlier), its git folders, the session
 * tmp, and every extra folder as it resolves unchecked (a superset of what gets mounted).
 */
function extraWritable(spec: SandboxSpec, root: string, home: string, gitWritable: string[], fs: LinkFsView): Extras {
  const extras = [
    // Writable in plan mode too: npx, uv and the like write their cache on every run, even to read.
    ...PACKAGE_CACHES.map((cache) => ({ path: join(home, cache), lexical: join(home, cache) })),
    ...spec.writePaths.map((path) => ({ path, lexical: lexicalPath(path, root, home) })),
  ];
  const reachable = [
    root,
    ...(spec.extraRoots ?? []),
    ...gitWritable,
    resolveLoose(spec.tmpDir, fs),
    ...extras.map((e) => resolveLoose(e.lexical, fs)),
  ];
  const result: Extras = { accepted: [], refused: [] };
  for (const extra of extras) {
    const walk = walkPath(extra.lexical, reachable, fs);
    if ("link" in walk) result.refused.push({ path: extra.path, link: walk.link });
    else result.accepted.push(walk.real);
  }
  return result;
}

export function sandboxPaths(spec: SandboxSpec, fs: LinkFsView): SandboxPaths {
  const root = resolveLoose(spec.root, fs);
  const home = resolveLoose(spec.home, fs);
  // Each extra root is a project as the root is: its git folders and .garuda held the same way.
  const extraRoots = (spec.extraRoots ?? []).map((path) => resolveLoose(path, fs));
  const projects = [root, ...extraRoots].map((project) => ({ project, git: gitPaths(project, fs) }));
  const git: GitPaths = {
    writable: projects.flatMap((p) => p.git.writable),
    protected: projects.flatMap((p) => p.git.protected),
  };
  const existingDir = (path: string) => fs.kind(path) === "dir";

  const extras = extraWritable(spec, root, home, git.writable, fs);
  const own = (spec.projectReadOnly ? [] : [root, ...extraRoots, ...git.writable]).map((path) =>
    resolveLoose(path, fs),
  );
  // A cache or writePath that holds a PATH folder (pnpm's home) keeps that folder's top read-only (pathFolderSplit.ts).
  const pathFolders = (spec.pathFolders ?? []).filter((dir) => dir.startsWith("/")).map((dir) => resolveLoose(dir, fs));
  const look = {
    kind: (path: string) => fs.kind(path),
    realpath: (path: string) => fs.realpath(path),
    list: (path: string) => listDir(path, fs),
  };
  const wanted = [...own, ...splitAroundPathFolders(extras.accepted, pathFolders, look)];
  const homeSplit = wanted.some((path) => isInside(home, path));
  const writable = dedupeNested(wanted.flatMap((path) => aroundHome(path, home, fs)).filter(existingDir));

  const declared = [
    ...projects.map(({ project }) => join(project, ".garuda/")),
    ...git.protected,
    ...(spec.gitRepos ?? []).flatMap((dir) => repoHolds(resolveLoose(dir, fs), fs)),
    ...spec.protectedPaths,
    // The home's own files, wherever a writable folder reaches them (homeHolds.ts).
    ...homeHolds(
      spec,
      {
        home,
        extraRoots: spec.projectReadOnly ? [] : extraRoots,
        homeSplit,
        resolve: (path) => resolveLoose(path, fs),
      },
      fs,
    ),
  ];
  const held = new Map<string, ProtectedPath>();
  for (const entry of declared) {
    const dir = entry.endsWith("/");
    const path = resolveLoose(resolve(root, entry), fs);
    if (!writable.some((w) => isInside(path, w))) continue; // already read-only
    const known = held.get(path);
    held.set(path, { path, dir: dir || (known?.dir ?? false) });
  }

  const denyRead = [...HOME_DENY_READ.map((path) => join(home, path)), ...SYSTEM_DENY_READ, ...spec.denyReadPaths].map(
    (path) => resolveLoose(resolve(root, path), fs),
  );

  // What the home's secret places only link to (a stow-managed ~/.ssh), hidden at its real path too (secretLinks.ts).
  const homeSecrets = HOME_SECRETS.map((path) => resolveLoose(join(home, path), fs));
  const linkedSecrets = secretLinkTargets(homeSecrets, [home, root, ...extraRoots], look);

  return {
    writable,
    protected: [...held.values()].sort((a, b) => byDepth(a.path, b.path)),
    denyRead: [...new Set([...denyRead, ...linkedSecrets])].sort(byDepth),
    refused: extras.refused,
  };
}
