// What git on the host would take for a repository, and whether one a sandboxed command made can
// run a program there. Git finds a repository from the folder it runs in upwards: a `.git`
// folder, a `.git` file (`gitdir: …`, what worktrees and submodules use), a `.git` link, or a
// folder that is itself a git folder (HEAD, objects and refs: a bare repository). From that git
// folder it reads config (and config.worktree), runs hooks, and follows `commondir` to the folder
// that holds them. `git status` in the project also enters every nested repository the index has
// a gitlink for. Each of these is judged here.
//
// A repository is harmless ("inert") when nothing it holds makes git run a program: every config
// key it sets is on a short list of keys git itself writes for clone, init, worktree and
// submodule (no core.fsmonitor, hooksPath, sshCommand, pager, editor, aliases, drivers, filters,
// includes …), its hooks folder holds only git's *.sample files, and its commondir leads to a
// repository that is known or harmless too. Files are read without following links, without
// waiting on a FIFO, and only when they are plain files with one name: a hard link's other name
// could change them where no watch sees it.
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  opendirSync,
  openSync,
  readFileSync,
  readSync,
  statSync,
} from "node:fs";
import { join, resolve } from "node:path";
import { codeOf } from "../../errors/caught.ts";
import { entryKind, isFolder } from "../../files/entryKind.ts";
import type { ConfigParser } from "./configKeys.ts";

export type MarkerKind = "dir" | "file" | "link" | "bare";

/** A place git on the host would take for a repository. */
export interface Marker {
  /** The folder git would run in: `<dir>/.git`, or `<dir>` itself for a bare repository. */
  dir: string;
  kind: MarkerKind;
  /** What a quarantine moves: `<dir>/.git`, or `<dir>/HEAD` for a bare repository. */
  entry: string;
  /** The entry's inode: the same path with another inode is another repository. */
  ino: number;
}

export type Verdict = { ok: true } | { ok: false; why: string };

export interface JudgeContext {
  /** Git folders whose config and hooks are the user's (known repositories, held read-only). */
  trusted(gitDir: string): boolean;
  /** Folders the guard watches: a gitfile may point only into these. */
  watched(dir: string): boolean;
  /** Config keys of a config file's text, as git parses them; undefined when git cannot parse it. */
  configKeys: ConfigParser;
}

const MAX_CONFIG_BYTES = 64 * 1024;
const MAX_HOOK_ENTRIES = 64;
const MAX_COMMONDIR_HOPS = 4;

/**
 * Config keys a harmless repository may set (section and key lower case, `*` a subsection): what
 * git writes for init, clone, worktree and submodule, and a few plain settings. Nothing here
 * names a program, a file git reads code from, or another config file.
 */
const SAFE_KEYS: RegExp[] = [
  new RegExp(
    String.raw`^core\.(repositoryformatversion|filemode|bare|logallrefupdates|ignorecase|precomposeunicode|symlinks` +
      "|worktree|sparsecheckout|sparsecheckoutcone|autocrlf|eol|safecrlf|quotepath|abbrev|checkstat|trustctime" +
      "|untrackedcache|commitgraph|multipackindex|compression|loosecompression|bigfilethreshold|sharedrepository" +
      "|protecthfs|protectntfs|splitindex)$",
  ),
  /^extensions\.(worktreeconfig|objectformat|preciousobjects|partialclone|noop)$/,
  /^remote\..+\.(url|pushurl|fetch|push|mirror|tagopt|prune|prunetags|promisor|partialclonefilter)$/,
  /^branch\..+\.(remote|merge|rebase|pushremote|description)$/,
  /^submodule\..+\.(url|active|branch|ignore|shallow|fetchrecursesubmodules)$/,
  /^submodule\.(active|recurse)$/,
  /^submodule\..+\.update$/, // value checked below: "!command" runs a program
  new RegExp(
    String.raw`^(user\.(name|email)|init\.defaultbranch|pull\.(rebase|ff)|push\.default|fetch\.prune|gc\.auto` +
      String.raw`|index\.version|feature\.manyfiles|lfs\.repositoryformatversion|clone\.defaultremotename` +
      String.raw`|maintenance\.auto)$`,
  ),
];

/** Why a config key may run something, or undefined when it cannot. */
function unsafeKey(key: string, value: string): string | undefined {
  if (!SAFE_KEYS.some((pattern) => pattern.test(key))) return `sets ${key}`;
  if (/\.update$/.test(key) && value.trim().startsWith("!")) return `sets ${key} to a command`;
  // ext:: and fd:: transports run programs; a leading dash would be read as an option.
  if (/\.(url|pushurl)$/.test(key) && /^\s*(ext::|fd::|-)/i.test(value))
    return `sets ${key} to ${value.split(":")[0]}::…`;
  return undefined;
}

type Small = { text: string } | { missing: true } | { bad: string };

/** A small plain file's text: no link followed, no FIFO waited on, one name only, capped. */
export function readSmall(path: string, max = MAX_CONFIG_BYTES): Small {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = codeOf(error);
    if (code === "ENOENT") return { missing: true };
    return { bad: code === "ELOOP" ? "is a symbolic link" : `cannot be read (${code})` };
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return { bad: "is not a plain file" };
    if (stat.nlink > 1) return { bad: "has another name (a hard link)" };
    if (stat.size > max) return { bad: `is larger than ${max} bytes` };
    const bytes = Buffer.alloc(stat.size);
    let got = 0;
    while (got < bytes.length) {
      const n = readSync(fd, bytes, got, bytes.length - got, got);
      if (n <= 0) break;
      got += n;
    }
    return { text: bytes.subarray(0, got).toString("utf8") };
  } finally {
    closeSync(fd);
  }
}

function inode(path: string): number {
  try {
    return lstatSync(path).ino;
  } catch {
    return 0;
  }
}

/** `<dir>` looks like a bare repository: HEAD, and objects and refs (or a commondir). */
function looksBare(dir: string): boolean {
  const head = entryKind(join(dir, "HEAD"));
  if (head !== "file" && head !== "symlink") return false;
  if (entryKind(join(dir, "commondir")) !== "missing") return true;
  return isFolder(join(dir, "objects")) && isFolder(join(dir, "refs"));
}

/**
 * The repositories git could find at `<dir>` itself (not above it): its `.git`, and the folder
 * itself when it looks bare. Both count: git falls back to the folder when `.git` is not a valid
 * git folder (an empty one, a FIFO), and a command can make either valid later.
 */
export function markersAt(dir: string): Marker[] {
  const markers: Marker[] = [];
  const dotGit = join(dir, ".git");
  const kind = entryKind(dotGit);
  if (kind === "dir") markers.push({ dir, kind: "dir", entry: dotGit, ino: inode(dotGit) });
  else if (kind === "symlink") markers.push({ dir, kind: "link", entry: dotGit, ino: inode(dotGit) });
  else if (kind === "file" || kind === "other") markers.push({ dir, kind: "file", entry: dotGit, ino: inode(dotGit) });
  if (looksBare(dir)) markers.push({ dir, kind: "bare", entry: join(dir, "HEAD"), ino: inode(join(dir, "HEAD")) });
  return markers;
}

/** The git folder a marker stands for (a gitfile's target, resolved as git resolves it). */
export function gitDirOf(marker: Marker): string | { bad: string } | undefined {
  if (marker.kind === "bare") return marker.dir;
  if (marker.kind === "dir") return marker.entry;
  if (marker.kind === "link") return { bad: "is a symbolic link" };
  const file = readSmall(marker.entry, 4096);
  if ("missing" in file) return undefined;
  if ("bad" in file) return { bad: file.bad };
  // As git reads it: "gitdir: " and the rest of the file, line ends at the end dropped.
  if (!file.text.startsWith("gitdir: ")) return undefined; // git refuses such a file: it runs nothing
  const target = file.text.slice(8).replace(/[\r\n]+$/, "");
  return target.length === 0 ? undefined : resolve(marker.dir, target);
}

/** The common git folder of `gitDir` (its commondir, followed), or why it cannot be trusted. */
function commonDirOf(gitDir: string): string | { bad: string } {
  const path = join(gitDir, "commondir");
  const file = readSmall(path, 4096);
  if ("missing" in file) return gitDir;
  if ("bad" in file) return { bad: `its commondir ${file.bad}` };
  const target = file.text.replace(/[\r\n]+$/, "");
  // Empty: git refuses to run in such a repository, so it runs nothing yet. It is what `git worktree
  // add` leaves for an instant before it writes the file, and the write is judged again (its event,
  // and the re-check while a command runs).
  return target.length === 0 ? gitDir : resolve(gitDir, target);
}

/** Why a config file may run something (undefined: it cannot). */
export async function configFileProblem(
  path: string,
  ctx: Pick<JudgeContext, "configKeys">,
): Promise<string | undefined> {
  return (await configProblem(path, ctx)).problem;
}

/** Why a config file (text as read) may run something, and its keys. */
async function configProblem(
  path: string,
  ctx: Pick<JudgeContext, "configKeys">,
): Promise<{ problem?: string; keys: Array<[string, string]> }> {
  const file = readSmall(path);
  if ("missing" in file) return { keys: [] };
  if ("bad" in file) return { problem: `its ${basenameOf(path)} ${file.bad}`, keys: [] };
  const keys = await ctx.configKeys(file.text);
  if (!keys) return { problem: `its ${basenameOf(path)} cannot be read by git`, keys: [] };
  for (const [key, value] of keys) {
    const why = unsafeKey(key, value);
    if (why) return { problem: `its ${basenameOf(path)} ${why}`, keys };
  }
  return { keys };
}

const basenameOf = (path: string) => path.slice(path.lastIndexOf("/") + 1);

/** Why a hooks folder may run something: anything but git's *.sample files. */
function hooksProblem(dir: string): string | undefined {
  const kind = entryKind(dir);
  if (kind === "missing") return undefined;
  if (kind !== "dir") return "its hooks folder is not a plain folder";
  let entries = 0;
  let handle: ReturnType<typeof opendirSync> | undefined;
  try {
    handle = opendirSync(dir);
    for (let entry = handle.readSync(); entry; entry = handle.readSync()) {
      if (++entries > MAX_HOOK_ENTRIES) return "its hooks folder holds too many files";
      if (!entry.name.endsWith(".sample")) return `it has a hook (${entry.name})`;
    }
  } catch {
    return "its hooks folder cannot be read";
  } finally {
    handle?.closeSync();
  }
  return undefined;
}

/** Whether git, using `gitDir`, could run a program a sandboxed command put there. */
async function judgeGitDir(gitDir: string, ctx: JudgeContext): Promise<Verdict> {
  if (ctx.trusted(gitDir)) return { ok: true };
  let common = gitDir;
  for (let hop = 0; ; hop++) {
    const next = commonDirOf(common);
    if (typeof next !== "string") return { ok: false, why: next.bad };
    if (next === common) break;
    if (hop >= MAX_COMMONDIR_HOPS) return { ok: false, why: "its commondir leads too far" };
    if (!ctx.trusted(next) && !ctx.watched(next))
      return { ok: false, why: `its commondir leads outside the project (${next})` };
    common = next;
    if (ctx.trusted(common)) break;
  }
  let worktreeConfig = false;
  if (!ctx.trusted(common)) {
    const config = await configProblem(join(common, "config"), ctx);
    if (config.problem) return { ok: false, why: config.problem };
    const hooks = hooksProblem(join(common, "hooks"));
    if (hooks) return { ok: false, why: hooks };
    worktreeConfig = config.keys.some(
      ([key, value]) => key === "extensions.worktreeconfig" && /^(true|yes|on|1)$/i.test(value.trim()),
    );
  } else {
    worktreeConfig = await trustedWorktreeConfig(join(common, "config"), ctx);
  }
  if (worktreeConfig) {
    const perWorktree = await configProblem(join(gitDir, "config.worktree"), ctx);
    if (perWorktree.problem) return { ok: false, why: perWorktree.problem };
  }
  return { ok: true };
}

/** Whether a (trusted) config turns on per-worktree config: then config.worktree counts as config. */
export async function trustedWorktreeConfig(
  configPath: string,
  ctx: Pick<JudgeContext, "configKeys">,
): Promise<boolean> {
  let text: string;
  try {
    // The user's own file, held read-only: a link or a second name is theirs to have.
    text = statSync(configPath).size <= 1024 * 1024 ? readFileSync(configPath, "utf8") : "";
  } catch {
    return false;
  }
  return ((await ctx.configKeys(text)) ?? []).some(
    ([key, value]) => key === "extensions.worktreeconfig" && /^(true|yes|on|1)$/i.test(value.trim()),
  );
}

/** Whether git, finding `marker`, could run a program a sandboxed command put there. */
export async function judgeMarker(marker: Marker, ctx: JudgeContext): Promise<Verdict> {
  const gitDir = gitDirOf(marker);
  if (gitDir === undefined) return { ok: true }; // git refuses it and runs nothing
  if (typeof gitDir !== "string") return { ok: false, why: `its .git ${gitDir.bad}` };
  if (marker.kind === "file") {
    if (ctx.trusted(gitDir)) return { ok: true };
    if (!ctx.watched(gitDir)) return { ok: false, why: `its .git file points outside the project (${gitDir})` };
  }
  return judgeGitDir(gitDir, ctx);
}

/** What a config's new text adds that runs something (compared with its old text), or undefined. */
export async function unsafeAddition(
  before: string,
  after: string,
  ctx: Pick<JudgeContext, "configKeys">,
): Promise<string | undefined> {
  const old = new Set(((await ctx.configKeys(before)) ?? []).map(([key, value]) => `${key}=${value}`));
  const now = await ctx.configKeys(after);
  if (!now) return "made it something git cannot read";
  for (const [key, value] of now) {
    if (old.has(`${key}=${value}`)) continue;
    const why = unsafeKey(key, value);
    if (why) return why;
  }
  return undefined;
}

/** An unfinished rebase's or cherry-pick's todo list, which `--continue` carries out. */
const TODO_LISTS = ["rebase-merge/git-rebase-todo", "sequencer/todo"];

/** The todo lists of `gitDir`: path → text (undefined: none). */
export function todoLists(gitDir: string): Map<string, string | undefined> {
  const lists = new Map<string, string | undefined>();
  for (const name of TODO_LISTS) {
    const file = readSmall(join(gitDir, name), 1024 * 1024);
    lists.set(join(gitDir, name), "text" in file ? file.text : undefined);
  }
  return lists;
}

/** A todo list line that runs a command (`exec`, `x`). */
export const hasExecLines = (text: string) => text.split("\n").some((line) => /^\s*(x|exec)\s+\S/.test(line));
