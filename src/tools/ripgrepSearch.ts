// What grep, glob and find_definition share when ripgrep searches for them (the embedded rg,
// run in its own sandbox by src/sandbox/ripgrep/runner.ts): the arguments that make rg walk as
// walk.ts does, reading its debug lines for what it skipped, re-checking every path it prints by
// the file tools' own rules, and putting its answers in walk.ts's order.
//
// As walk.ts: .gitignore rules apply in and out of a git repository, matched with or without case
// as the repository's core.ignorecase says; .git never, node_modules only when named; hidden
// files are searched; no global excludes and no .ignore files (which walk.ts does not read); a
// symlink is not followed by rg (walk.ts lists a link to a file: the tool handles those itself).
import { lstatSync, realpathSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import type { RipgrepOutcome, RipgrepRunner } from "../sandbox/ripgrep/runner.ts";
import type { SecretIdentitySet } from "../files/secretIdentities.ts";
import { insideRoot } from "../permission/pathMatch.ts";
import { repositoryIgnoresCase } from "./ignoreRules.ts";
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
    "--debug",
    "--hidden",
    "--no-require-git",
    "--no-ignore-global",
    "--no-ignore-dot",
    ...(repositoryIgnoresCase(walk.root) ? ["--ignore-file-case-insensitive"] : []),
    "--glob",
    "!.git",
    ...(walk.includeNodeModules ? [] : ["--glob", "!node_modules/"]),
  ];
}

/** The runner, when the search can use it: a folder inside the project, a machine with the embedded rg. */
export function ripgrepFor(ctx: ToolContext, base: string): RipgrepRunner | undefined {
  const runner = ctx.executor?.ripgrep;
  return runner && insideRoot(base, ctx.root) !== undefined ? runner : undefined;
}

/** What rg's debug lines say it skipped, by path relative to the base. */
export interface Skipped {
  /** Over --max-filesize. */
  tooBig: string[];
  /** Pipes, sockets, devices. */
  special: string[];
  /** Symlinks (rg does not follow them; walk.ts lists a link to a file). */
  links: string[];
}

const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;
const SIZE_LINE = /^DEBUG\|ignore::walk\|[^ ]+ ignoring (.+): \d+ bytes$/;
const TYPE_LINE =
  /^DEBUG\|rg::subject\|[^ ]+ ignoring (.+): failed to pass subject filter: file type: Some\(FileType\(FileType \{ mode: (\d+) \}\)\)/;

/** `./a/b` → `a/b`. */
const relOf = (printed: string) => printed.replace(/^\.\//, "");

export function skippedOf(stderr: string): Skipped {
  const skipped: Skipped = { tooBig: [], special: [], links: [] };
  for (const line of stderr.split("\n")) {
    if (!line.startsWith("DEBUG|")) continue;
    const big = SIZE_LINE.exec(line);
    if (big) {
      skipped.tooBig.push(relOf(big[1] as string));
      continue;
    }
    const typed = TYPE_LINE.exec(line);
    if (!typed) continue;
    const mode = Number(typed[2]) & S_IFMT;
    // Folders never reach the subject filter; what is left is a link or not a regular file.
    (mode === S_IFLNK ? skipped.links : skipped.special).push(relOf(typed[1] as string));
  }
  return skipped;
}

/** Whether `base` is still the real folder the permission check named (else the tools' own search says what changed). */
export function stillChecked(base: string): boolean {
  try {
    return realpathSync(base) === base && statSync(base).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Runs rg in the walk's folder: its output, "cancelled", or undefined when it could not answer
 * or the folder is no longer the one checked (before or after: rg may have searched another).
 */
export async function runWalk(
  runner: RipgrepRunner,
  walk: RipgrepWalk,
  args: string[],
  signal: AbortSignal,
): Promise<Extract<RipgrepOutcome, { kind: "done" }> | "cancelled" | undefined> {
  if (!stillChecked(walk.base)) return undefined;
  const outcome = await runner.run({ cwd: walk.base, args, signal });
  if (outcome.kind === "cancelled") return "cancelled";
  return answered(outcome) && stillChecked(walk.base) ? outcome : undefined;
}

/** The paths of `--null` output (`./a/b\0`), relative to the walk's folder; undefined when one is not UTF-8. */
export function printedPaths(stdout: Buffer): string[] | undefined {
  const paths: string[] = [];
  for (const printed of stdout.toString("utf8").split("\0")) {
    if (printed === "") continue;
    // A name that is not UTF-8 cannot be told apart from another; the tools' own search answers.
    if (printed.includes("\uFFFD")) return undefined;
    paths.push(printed.replace(/^\.\//, ""));
  }
  return paths;
}

/** Whether rg's run answered; anything else (it could not run, it failed) leaves the search to the tools' own. */
function answered(outcome: RipgrepOutcome): outcome is Extract<RipgrepOutcome, { kind: "done" }> {
  if (outcome.kind !== "done") return false;
  if (outcome.code === 0 || outcome.code === 1) return true;
  // 2: an error. Files it could not read are skipped as walk.ts skips them; any other error is not an answer.
  return outcome.stderr
    .split("\n")
    .every((line) => line === "" || line.startsWith("DEBUG|") || /^rg: .*\(os error \d+\)$/.test(line));
}

/**
 * The paths the file tools may show: not withheld, nor inside a withheld folder (walk.ts never
 * enters one). Folders are asked once each.
 */
export function visibility(walk: RipgrepWalk): (rel: string) => boolean {
  const folders = new Map<string, boolean>();
  const folderVisible = (abs: string): boolean => {
    if (abs === walk.base) return true;
    const known = folders.get(abs);
    if (known !== undefined) return known;
    const visible = folderVisible(dirname(abs)) && !walk.withheld(abs);
    folders.set(abs, visible);
    return visible;
  };
  return (rel) => {
    const abs = join(walk.base, rel);
    return folderVisible(dirname(abs)) && !walk.withheld(abs);
  };
}

/** What a printed file is now: a plain file with one name that is no secret, or why not. */
export function plainFile(abs: string, secrets: SecretIdentitySet): "plain" | "other" {
  try {
    const stat = lstatSync(abs);
    if (!stat.isFile() || stat.nlink > 1) return "other";
    return secrets.secretOf(stat.dev, stat.ino) === undefined ? "plain" : "other";
  } catch {
    return "other";
  }
}

/** walk.ts's order: depth first, each folder's entries by name (so `a/b` comes before `a.c`). */
export function walkOrder(a: string, b: string): number {
  const x = a.split("/");
  const y = b.split("/");
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const p = x[i] as string;
    const q = y[i] as string;
    if (p !== q) return p < q ? -1 : 1;
  }
  return x.length - y.length;
}
