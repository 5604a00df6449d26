// What grep, glob and find_definition share when ripgrep searches for them (the embedded rg,
// run in its own sandbox by src/sandbox/ripgrep/runner.ts): the arguments that make rg walk as
// walk.ts does, re-checking every path it prints by the file tools' own rules, and putting its
// answers in walk.ts's order.
//
// As walk.ts: .gitignore rules apply in and out of a git repository, matched with or without case
// as the repository's core.ignorecase says; .git never, node_modules only when named; hidden
// files are searched; no global excludes and no .ignore files (which walk.ts does not read;
// rg 13 reads .rgignore files all the same: placeOf tests every path by walk.ts's rules again). rg
// follows links (--follow), so a link to a file is searched as walk.ts searches it; what it
// finds under a linked folder, which walk.ts never enters, is dropped here (placeOf), and a link
// out of the project leads nowhere in rg's sandbox (its name comes back as an error, glob lists
// it). rg's debug lines would say which pipes it skipped, but cost seconds on a large tree (one
// unbuffered line per file its filters pass over), so pipes, and files over the size the tools'
// own search reads, are skipped without a note on this path.
import { lstatSync, realpathSync, statSync } from "node:fs";
import { availableParallelism } from "node:os";
import { dirname } from "node:path";
import type { RipgrepOutcome, RipgrepRunner } from "../sandbox/ripgrep/runner.ts";
import type { SecretIdentitySet } from "../files/secretIdentities.ts";
import { insideRoot } from "../permission/pathMatch.ts";
import { ancestorLayers, folderLayer, type IgnoreLayer, isIgnored, repositoryIgnoresCase } from "./ignoreRules.ts";
import type { ToolContext } from "./types.ts";

export interface RipgrepWalk {
  root: string;
  /** The real folder rg walks (inside the root). */
  base: string;
  includeNodeModules: boolean;
  withheld: (absPath: string) => boolean;
}

/** The arguments that make rg's walk walk.ts's. */
export function walkArgs(walk: RipgrepWalk): string[] {
  return [
    "--no-config",
    "--hidden",
    "--follow",
    "--no-require-git",
    "--no-ignore-global",
    "--no-ignore-dot",
    ...(repositoryIgnoresCase(walk.root) ? ["--ignore-file-case-insensitive"] : []),
    "--glob",
    "!.git",
    ...(walk.includeNodeModules ? [] : ["--glob", "!node_modules/"]),
  ];
}

/**
 * rg's threads for a walk beside another search (find_definition's files in other languages,
 * beside its C search): one core fewer than the machine has, left to the other. On two cores the
 * parallel walk took as long as one thread's and twice the CPU, which it took from the C search.
 * (glob keeps rg's own count: there one thread made a short listing slower as often as it made a
 * long one faster, whose time goes to the checks of what rg prints.)
 */
export function besideThreads(): string[] {
  return ["--threads", String(Math.max(1, availableParallelism() - 1))];
}

/**
 * The runner and the walk of a search through rg, when it can use one: a folder inside the project, a machine with the
 * embedded rg.
 */
export function ripgrepFor(
  ctx: ToolContext,
  base: string,
  includeNodeModules: boolean,
  withheld: (absPath: string) => boolean,
): { runner: RipgrepRunner; walk: RipgrepWalk } | undefined {
  const runner = ctx.executor?.ripgrep;
  if (!runner || insideRoot(base, ctx.root) === undefined) return undefined;
  return { runner, walk: { root: ctx.root, base, includeNodeModules, withheld } };
}

/**
 * Whether `base` is still the real folder the permission check named (else the tools' own search says what changed).
 */
function stillChecked(base: string): boolean {
  try {
    return realpathSync(base) === base && statSync(base).isDirectory();
  } catch {
    return false;
  }
}

/** A file rg could not open (a link out of the project, which its sandbox does not hold), or a loop of links. */
const WALK_ERROR = /^(?:rg: )?(.+): No such file or directory \(os error 2\)$/;
const EXPECTED_ERROR = /\(os error \d+\)$|^(?:rg: )?File system loop found: /;

/** Whether rg's run answered: anything else (it could not run, it failed) leaves the search to the tools' own. */
function answered(outcome: RipgrepOutcome): outcome is Extract<RipgrepOutcome, { kind: "done" }> {
  if (outcome.kind !== "done") return false;
  if (outcome.code === 0 || outcome.code === 1) return true;
  // 2: an error. Files it could not read are skipped as walk.ts skips them; any other error is not an answer.
  return outcome.stderr.split("\n").every((line) => line === "" || EXPECTED_ERROR.test(line));
}

export interface WalkRun {
  outcome: Extract<RipgrepOutcome, { kind: "done" }>;
  /** Date.now() when rg started: a folder changed since may have shown rg another file (changedFolders). */
  startedMs: number;
}

/** rg's output taken record by record while it runs: records end with `separator` (a byte). */
export type RecordStream =
  | {
      separator: number;
      /** One record, without its separator, as UTF-8 text; `startedMs` as WalkRun's. */
      onRecord(record: string, startedMs: number): void;
    }
  | {
      separator: number;
      /** One record, without its separator, as rg printed it (valid only during the call). */
      onBytes(record: Buffer, startedMs: number): void;
    };

/** Cuts chunks into records, keeping what a chunk ends with for the next. */
function recordCutter(stream: RecordStream, startedMs: number): { push(chunk: Uint8Array): void; end(): void } {
  let rest: Buffer = Buffer.alloc(0);
  const give = (record: Buffer) =>
    "onBytes" in stream ? stream.onBytes(record, startedMs) : stream.onRecord(record.toString("utf8"), startedMs);
  return {
    push(chunk) {
      const bytes = rest.length === 0 ? Buffer.from(chunk) : Buffer.concat([rest, chunk]);
      let start = 0;
      for (let end = bytes.indexOf(stream.separator); end !== -1; end = bytes.indexOf(stream.separator, start)) {
        give(bytes.subarray(start, end));
        start = end + 1;
      }
      rest = bytes.subarray(start);
    },
    end() {
      if (rest.length > 0) give(rest);
      rest = Buffer.alloc(0);
    },
  };
}

/**
 * Runs rg in the walk's folder: its output, "cancelled", or undefined when it could not answer
 * or the folder is no longer the one checked (before or after: rg may have searched another).
 * With `stream`, the output goes to it record by record as rg prints it (what is done with a
 * record overlaps rg's run) and is not kept; the caller drops what it took when this is undefined.
 */
export async function runWalk(
  runner: RipgrepRunner,
  walk: RipgrepWalk,
  args: string[],
  signal: AbortSignal,
  stream?: RecordStream,
): Promise<WalkRun | "cancelled" | undefined> {
  if (!stillChecked(walk.base)) return undefined;
  const startedMs = Date.now();
  const cutter = stream && recordCutter(stream, startedMs);
  const outcome = await runner.run({
    cwd: walk.base,
    args,
    signal,
    ...(cutter && { onStdout: (chunk: Uint8Array) => cutter.push(chunk) }),
  });
  cutter?.end();
  if (outcome.kind === "cancelled") return "cancelled";
  return answered(outcome) && stillChecked(walk.base) ? { outcome, startedMs } : undefined;
}

/** The names rg could not open, relative to the walk's folder (links out of the project among them). */
export function unopened(stderr: string): string[] {
  const names: string[] = [];
  for (const line of stderr.split("\n")) {
    const match = WALK_ERROR.exec(line);
    if (match) names.push((match[1] as string).replace(/^\.\//, ""));
  }
  return names;
}

/** A printed path as walk.ts would have reached it. */
export interface Place {
  abs: string;
  /** abs, or a link's target. */
  realPath: string;
  link: boolean;
  /** A link whose target is outside the project. */
  outside: boolean;
  /** The entry's own mtime (a link's, not its target's), as glob sorts. */
  mtimeMs: number;
  /** The file read (a link's target): its identity, how many names it has, its size. */
  file: { dev: number; ino: number; nlink: number; size: number };
}

/**
 * Whether walk.ts's .gitignore rules (ignoreRules.ts) leave a path under the base out. rg's own
 * rules differ where it matters: it does not apply a .gitignore above a nested repository to
 * the files in it, nor read a .gitignore's first rule after a byte-order mark, and it reads
 * .rgignore files (`!name` there shows a file .gitignore leaves out); what rg prints
 * is tested again by the rules walk.ts uses, each folder's layers built once.
 */
function ignoreRecheck(walk: RipgrepWalk): (dir: string) => IgnoreLayer[] {
  const ignoreCase = repositoryIgnoresCase(walk.root);
  let above = ancestorLayers(walk.root, walk.base, ignoreCase);
  // A folder the model named on purpose is searched even when an upper .gitignore excludes it.
  if (above.length > 0 && isIgnored(above, walk.base, true)) above = [];
  const layers = new Map<string, IgnoreLayer[]>();
  const layersOf = (dir: string): IgnoreLayer[] => {
    const known = layers.get(dir);
    if (known) return known;
    const inherited = dir === walk.base || !dir.startsWith(walk.base) ? above : layersOf(dirname(dir));
    const own = folderLayer(dir, ignoreCase);
    const result = own ? [...inherited, own] : inherited;
    layers.set(dir, result);
    return result;
  };
  return layersOf;
}

/** A folder on the way to printed files: whether walk.ts enters it, and the layers that apply to what is in it. */
interface Folder {
  ok: boolean;
  layers: IgnoreLayer[];
}

/**
 * Where a printed path is, when walk.ts would list it: not withheld, nor under a withheld folder
 * or a linked one (walk.ts never enters either), and a regular file or a link to one whose target
 * is not withheld. One lstat per file (and a stat of a link's target); folders are asked once each
 * (one lookup per path finds what its folder's checks said and its .gitignore layers).
 */
export function placeOf(walk: RipgrepWalk): (rel: string) => Place | undefined {
  const layersOf = ignoreRecheck(walk);
  const folders = new Map<string, Folder>();
  const none: IgnoreLayer[] = [];
  const folderOf = (abs: string): Folder => {
    const known = folders.get(abs);
    if (known !== undefined) return known;
    let ok = true;
    if (abs !== walk.base) {
      // rg prints paths under its folder; anything else (the file system's top) is not entered.
      const up = dirname(abs);
      const parent = up === abs ? { ok: false, layers: none } : folderOf(up);
      ok = parent.ok && !walk.withheld(abs) && !isIgnored(parent.layers, abs, true);
      try {
        ok &&= lstatSync(abs).isDirectory();
      } catch {
        ok = false;
      }
    }
    // What is under a folder walk.ts does not enter is never listed: its .gitignore is not read.
    const folder = { ok, layers: ok ? layersOf(abs) : none };
    folders.set(abs, folder);
    return folder;
  };
  // rg prints normalized paths under its folder: no join needed (a hit list can be 30,000 long).
  const prefix = walk.base.endsWith("/") ? walk.base : `${walk.base}/`;
  return (rel) => {
    const abs = prefix + rel;
    const folder = folderOf(abs.slice(0, abs.lastIndexOf("/")) || "/");
    if (!folder.ok || walk.withheld(abs) || isIgnored(folder.layers, abs, false)) return undefined;
    try {
      const own = lstatSync(abs);
      if (own.isFile()) return { abs, realPath: abs, link: false, outside: false, mtimeMs: own.mtimeMs, file: own };
      if (!own.isSymbolicLink()) return undefined;
      const realPath = realpathSync(abs);
      const target = statSync(realPath);
      if (!target.isFile() || walk.withheld(realPath)) return undefined;
      const outside = insideRoot(realPath, walk.root) === undefined;
      return { abs, realPath, link: true, outside, mtimeMs: own.mtimeMs, file: target };
    } catch {
      return undefined;
    }
  };
}

/** Whether the file read is plain: one name, and no secret on the list. */
export function plainFile(place: Place, secrets: SecretIdentitySet): boolean {
  return place.file.nlink === 1 && secrets.secretOf(place.file.dev, place.file.ino) === undefined;
}

/**
 * Whether a folder on the way to a printed file (its absolute path: Place.abs) changed (its ctime, which no command can
 * set
 * back) since shortly before rg started: an entry renamed, or swapped for a link and back, so
 * what rg read under that name may have been another file. The way starts at the root, not at
 * the folder searched: a folder above it swapped for a link as rg started, and back, changes
 * none below it. Such files are read again by the
 * tools' own pinned read (checkedFile.ts). The margin covers the coarse clock file times use.
 */
export function changedFolders(walk: RipgrepWalk, startedMs: number): (abs: string) => boolean {
  const since = startedMs - 1000;
  const folders = new Map<string, boolean>();
  const changed = (abs: string): boolean => {
    const known = folders.get(abs);
    if (known !== undefined) return known;
    let result: boolean;
    try {
      const parent = dirname(abs);
      result = lstatSync(abs).ctimeMs >= since || (abs !== walk.root && parent !== abs && changed(parent));
    } catch {
      result = true;
    }
    folders.set(abs, result);
    return result;
  };
  return (abs) => changed(abs.slice(0, abs.lastIndexOf("/")) || "/");
}

/**
 * Sorts in walk.ts's order: depth first, each folder's entries by name (`a/b` before `a.c`), which
 * is the order of the paths with `/` read as a character before every other (names hold no NUL).
 */
export function inWalkOrder<T>(items: T[], relOf: (item: T) => string): T[] {
  const keyed = items.map((item) => ({ key: relOf(item).replaceAll("/", "\0"), item }));
  keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return keyed.map((entry) => entry.item);
}
