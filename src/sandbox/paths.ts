// Which paths a sandboxed command may write, must not change, and must not read: the spec plus
// the defaults every sandbox gets. Pure over (spec, fs); both launchers (bwrap.ts, seatbelt.ts)
// turn the result into their own terms.
import { basename, dirname, join, resolve } from "node:path";
import { type FsView, byDepth, isInside } from "./fsView.ts";
import type { SandboxSpec } from "./types.ts";

/** Package caches under HOME, writable when they exist, so installs and builds work. */
export const PACKAGE_CACHES = [
  ".cache", // pip, uv (~/.cache/uv), yarn, go-build, bun, node-gyp …
  ".npm",
  ".local/share/pnpm",
  ".local/share/uv",
  ".m2/repository",
  ".gradle/caches",
  ".gradle/wrapper",
  ".cargo/registry",
  ".cargo/git",
  ".bun/install/cache",
  "go/pkg/mod",
  "Library/Caches", // macOS
  "Library/pnpm", // macOS
];

/**
 * Read-only inside HOME even when HOME is writable (a project at ~, or a writePath over it):
 * files a shell or git runs on the host, and Garuda's own settings. A trailing "/" marks a folder.
 */
export const HOME_PROTECTED = [
  ".bashrc",
  ".bash_profile",
  ".bash_login",
  ".profile",
  ".zshrc",
  ".zshenv",
  ".zprofile",
  ".zlogin",
  ".gitconfig",
  ".config/git/config",
  ".garuda/",
];

/** Unreadable: credentials of common tools and Garuda's own secrets. */
export const HOME_DENY_READ = [
  ".ssh",
  ".aws",
  ".azure",
  ".gnupg",
  ".kube",
  ".docker",
  ".config/gcloud",
  ".config/gh",
  ".config/git/credentials",
  ".netrc",
  ".npmrc",
  ".pypirc",
  ".git-credentials",
  ".cargo/credentials",
  ".cargo/credentials.toml",
  "Library/Keychains",
  ".garuda/credentials",
  ".garuda/mcp-auth.json",
  ".claude.json",
  ".claude/.credentials.json",
];

/** Host sockets that would hand out the machine (a path-based socket stays connectable on a read-only mount). */
export const SYSTEM_DENY_READ = ["/var/run/docker.sock", "/run/docker.sock"];

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

/** The real git folders of a worktree or submodule whose `.git` is a file (`gitdir: …`). */
function linkedGitDirs(root: string, fs: FsView): { gitDir: string; commonDir: string } | undefined {
  const text = fs.readText(join(root, ".git"));
  const match = text ? /^gitdir:\s*(.+?)\s*$/m.exec(text) : null;
  if (!match?.[1]) return undefined;
  const gitDir = fs.realpath(resolve(root, match[1]));
  if (fs.kind(gitDir) !== "dir") return undefined;
  const common = fs.readText(join(gitDir, "commondir"))?.trim();
  const commonDir = common ? fs.realpath(resolve(gitDir, common)) : gitDir;
  return { gitDir, commonDir: fs.kind(commonDir) === "dir" ? commonDir : gitDir };
}

interface GitPaths {
  writable: string[];
  protected: string[];
}

/**
 * `.git/hooks` and `.git/config` stay read-only (hooks and config run code on the host), the rest
 * of `.git` stays writable so commit, fetch and branch work. A `.git` file (worktree, submodule)
 * points elsewhere: that git folder becomes writable with the same two exceptions, and the `.git`
 * file itself read-only. No `.git` at all: nothing is held, so `git init` works in the sandbox.
 */
function gitPaths(root: string, fs: FsView): GitPaths {
  const dotGit = join(root, ".git");
  const kind = fs.kind(dotGit);
  if (kind === "dir") return { writable: [], protected: [join(dotGit, "hooks/"), join(dotGit, "config")] };
  if (kind !== "file") return { writable: [], protected: [] };
  const linked = linkedGitDirs(root, fs);
  if (!linked) return { writable: [], protected: [dotGit] };
  const { gitDir, commonDir } = linked;
  const held = [dotGit, join(commonDir, "hooks/"), join(commonDir, "config")];
  if (gitDir !== commonDir) held.push(join(gitDir, "config.worktree"));
  return { writable: [...new Set([gitDir, commonDir])], protected: held };
}

function dedupeNested(paths: string[]): string[] {
  const sorted = [...new Set(paths)].sort(byDepth);
  return sorted.filter((path, i) => !sorted.slice(0, i).some((outer) => outer !== path && isInside(path, outer)));
}

export function sandboxPaths(spec: SandboxSpec, fs: FsView): SandboxPaths {
  const root = resolveLoose(spec.root, fs);
  const home = resolveLoose(spec.home, fs);
  const git = gitPaths(root, fs);
  const existingDir = (path: string) => fs.kind(path) === "dir";

  const candidates = [
    ...(spec.projectReadOnly ? [] : [root, ...git.writable]),
    ...PACKAGE_CACHES.map((cache) => join(home, cache)),
    ...spec.writePaths,
  ];
  const writable = dedupeNested(candidates.map((path) => resolveLoose(path, fs)).filter(existingDir));

  const declared = [
    ".garuda/",
    ...git.protected,
    ...HOME_PROTECTED.map((path) => join(home, path)), // join keeps a trailing "/"
    ...spec.protectedPaths,
  ];
  const held = new Map<string, ProtectedPath>();
  for (const entry of declared) {
    const dir = entry.endsWith("/");
    const path = resolveLoose(resolve(root, entry), fs);
    if (!writable.some((w) => isInside(path, w))) continue; // already read-only
    const known = held.get(path);
    held.set(path, { path, dir: dir || (known?.dir ?? false) });
  }

  const denyRead = [
    ...HOME_DENY_READ.map((path) => join(home, path)),
    ...SYSTEM_DENY_READ,
    ...spec.denyReadPaths,
  ].map((path) => resolveLoose(resolve(root, path), fs));

  return {
    writable,
    protected: [...held.values()].sort((a, b) => byDepth(a.path, b.path)),
    denyRead: [...new Set(denyRead)].sort(byDepth),
  };
}
