// The home folder's rules in the sandbox (files/homeOwn.ts says which files are the home's own):
// wherever a command may write — the session's root, an editor's extra folder, a writePath —
// the files the computer runs or trusts later stay read-only. A writable folder that holds the
// home is split around it (aroundHome); the PATH folders inside the home, the home's own files
// that are links into a writable folder (a dotfiles repository), and an extra folder that is
// itself one of the home's own are held read-only (homeHolds). Pure over (spec, fs), like paths.ts.
import { join, resolve } from "node:path";
import { HOME_BIN_FOLDERS, isHomeOwnName, isHomeOwnPath } from "../files/homeOwn.ts";
import { isInside } from "../files/isInside.ts";
import { type LinkFsView, listDir } from "./fsView.ts";
import type { SandboxSpec } from "./types.ts";

/** Package caches under HOME, writable when they exist, so installs and builds work. */
export const PACKAGE_CACHES = [
  ".cache", // pip, uv (~/.cache/uv), yarn, go-build, bun, node-gyp …
  ".npm",
  ".local/share/pnpm",
  // Not ~/.local/share/uv: that is uv's data (installed tools, Pythons and tokens), its cache is ~/.cache/uv.
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
const HOME_PROTECTED = [
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

/**
 * Programs the host runs that live inside a package cache, held read-only although the cache is
 * writable: corepack's package managers (the `pnpm` or `yarn` on PATH runs the copy it downloaded
 * here; a missing folder is held too, so none can be planted and a new version is downloaded on
 * the host) and pnpm's global packages (what `pnpm add -g` put on PATH, also when Garuda's own
 * PATH lacks PNPM_HOME; pathFolderSplit.ts holds the rest of a PNPM_HOME on PATH).
 */
const PROGRAMS_IN_CACHES = [".cache/node/corepack/", ".local/share/pnpm/global/", "Library/pnpm/global/"];

/**
 * Folders below the home's own entries that the desktop or the shell runs from: held read-only
 * inside any writable folder (a writePath over ~/.config), missing ones too, and looked at on
 * their own because a dotfiles manager links them one by one (~/.config/systemd → a repository).
 */
const HOME_RUN_PLACES = [
  ".config/autostart",
  ".config/systemd",
  ".config/environment.d",
  ".config/fish", // config.fish, conf.d/, functions/: every fish shell runs them
  ".local/bin",
  ".local/share/systemd",
];

/**
 * A writable folder that holds the home folder (a session at ~, a writePath over it), as the
 * folders a command may write instead: on the way down to the home every other entry, and in the
 * home its plain-named folders but not its own (dotfiles, ~/bin, ~/Library: files/homeOwn.ts). The
 * folders on the way and the home itself stay read-only, so nothing new appears at their top
 * (a fresh ~/.npmrc, say); a symlink or a file there stays read-only too. Any other folder: itself.
 */
export function aroundHome(dir: string, home: string, fs: LinkFsView): string[] {
  if (!isInside(home, dir)) return [dir];
  const folders: string[] = [];
  const isDir = (path: string) => fs.kind(path) === "dir";
  for (let current = dir; current !== home; ) {
    const step = home.slice(current === "/" ? 1 : current.length + 1).split("/")[0] as string;
    for (const name of listDir(current, fs))
      if (name !== step && isDir(join(current, name))) folders.push(join(current, name));
    current = join(current, step);
  }
  for (const name of listDir(home, fs))
    if (!isHomeOwnName(name) && isDir(join(home, name))) folders.push(join(home, name));
  return folders;
}

/**
 * The PATH folders inside the home (~/go/bin, a project's bin on PATH), missing ones too: the shell on the host runs
 * what lands there.
 */
function homePathFolders(spec: SandboxSpec, home: string): string[] {
  const named = [
    ...HOME_BIN_FOLDERS.map((bin) => join(home, bin)),
    ...(spec.pathFolders ?? []).filter((dir) => dir.startsWith("/")).map((dir) => resolve(dir)),
  ];
  return [...new Set(named)].filter((dir) => dir !== home && isInside(dir, home));
}

export interface HomeHoldsContext {
  /** The home, real. */
  home: string;
  /** The extra roots (an editor's additionalDirectories), real, when commands may write them. */
  extraRoots: string[];
  /** Whether a writable folder holds the home (a session at ~): it was split by aroundHome. */
  homeSplit: boolean;
  /** Resolves a path's existing part (paths.ts resolveLoose). */
  resolve(path: string): string;
}

/**
 * What the home's rules hold read-only, as paths to hold (a trailing "/" marks a folder). The
 * caller keeps those inside a writable folder; the rest is read-only anyway.
 * - The files every session holds (HOME_PROTECTED, PROGRAMS_IN_CACHES), and the places the desktop
 *   and the shell run from (HOME_RUN_PLACES), wherever a folder is writable (a writePath over
 *   ~/.config), through links too.
 * - The PATH folders inside the home: all of them when the home was split, as a session at ~
 *   does; else those inside an extra root (a session's root inside the home keeps its own).
 * - The home's own entries and run places that are links, at their targets: a dotfiles
 *   repository's files are the home's own wherever the repository is writable from.
 * - An extra root that is itself one of the home's own (~/.config): all of it. The editor's
 *   folder is refused before that (compose/extraRoots.ts); this keeps the sandbox right alone.
 */
export function homeHolds(spec: SandboxSpec, context: HomeHoldsContext, fs: LinkFsView): string[] {
  const { home, extraRoots } = context;
  const inExtra = (path: string) => extraRoots.some((extra) => isInside(context.resolve(path), extra));
  const pathFolders = homePathFolders(spec, home)
    .filter((dir) => context.homeSplit || inExtra(dir))
    .map((dir) => `${dir}/`);
  const caches = new Set(PACKAGE_CACHES.filter((cache) => !cache.includes("/")));
  // Only links are looked up (one lstat per entry): a home has hundreds of dot entries, and this runs per command.
  const ownLinks = listDir(home, fs)
    .filter((name) => isHomeOwnName(name) && !caches.has(name))
    .map((name) => join(home, name))
    .filter((path) => fs.kind(path) === "symlink");
  const linked = [...ownLinks, ...HOME_RUN_PLACES.map((place) => join(home, place))].flatMap((path) => {
    const target = context.resolve(path);
    if (target === path) return [];
    return [fs.kind(target) === "dir" ? `${target}/` : target];
  });
  const ownExtras = extraRoots.filter((extra) => isHomeOwnPath(extra, home)).map((extra) => `${extra}/`);
  return [
    ...[...HOME_PROTECTED, ...PROGRAMS_IN_CACHES].map((path) => join(home, path)),
    ...HOME_RUN_PLACES.map((place) => `${join(home, place)}/`),
    ...pathFolders,
    ...linked,
    ...ownExtras,
  ];
}
