// Where Tab's candidates come from: the commands (built-in, custom commands and skills, as /help
// lists them) and the files of the project root, walked the way glob and grep walk it
// (tools/walk.ts: .gitignore'd paths, .git and node_modules left out, sensitive files never
// shown), bounded for a huge tree by a file count and a time limit, and kept for a few seconds so
// each Tab does not walk again.
import { realpathSync } from "node:fs";
import { BUILTIN_DESCRIPTIONS, isSharedBuiltin } from "../../runtime/builtinNames.ts";
import { BUILTIN_COMMANDS } from "../../runtime/commands.ts";
import type { CommandInfo } from "../../runtime/services.ts";
import { oneLine } from "../../text/visible.ts";
import { walkFiles } from "../../tools/walk.ts";
import { type WithheldPredicate, withheldPredicate } from "../../tools/withheldPaths.ts";
import { type Candidate, type CompletionTarget, fuzzyFiles, matching } from "./completion.ts";
import { groupedCount } from "../../text/count.ts";

const MAX_INDEXED_FILES = 20_000;
const INDEX_WALK_MS = 1_500;
const INDEX_FRESH_MS = 10_000;
const MAX_PATH_CANDIDATES = 200;
/** The fuzzy matches the menu keeps (it shows a few rows; the rest are reached with the arrows). */
const MAX_MENU_FILES = 50;

export interface CompletionSource {
  candidates(target: CompletionTarget): Promise<Candidate[]>;
  /**
   * What the menu shown as you type lists for `target`, already filtered to its word, best first:
   * the commands that start with it, then those that hold it; the files and folders that
   * complete it on its level, then the project's files that fit it fuzzily.
   */
  menu?(target: CompletionTarget): Promise<Candidate[]>;
  /** A line for under the list: the file index stopped at its bound, so some files are not offered. */
  note?(target: CompletionTarget): string | undefined;
}

const CHAT_ONLY: Readonly<Record<string, string>> = {
  help: "the commands and keys",
  clear: "start a new conversation",
  fork: "go on in a copy of this conversation; the original stays as it is",
  rewind: "go back to an earlier prompt: the files, the conversation or both",
  exit: "leave the chat",
};

/** The built-ins, then the custom commands and skills. */
export function commandCandidates(custom: readonly CommandInfo[]): Candidate[] {
  const builtins = BUILTIN_COMMANDS.map((name) => ({
    value: name,
    description: isSharedBuiltin(name) ? BUILTIN_DESCRIPTIONS[name].description : (CHAT_ONLY[name] ?? ""),
  }));
  const taken = new Set<string>(BUILTIN_COMMANDS);
  const others = custom
    .filter((command) => !taken.has(command.name))
    .map((command) => ({ value: command.name, description: oneLine(command.description, 120) }));
  return [...builtins, ...others];
}

/**
 * The files and folders that complete `word`: first those on its own level (`src/c` → `src/cli/`,
 * `src/config.ts`); when none, files anywhere whose name starts with it (`main` → `src/cli/main.ts`).
 */
export function pathCandidates(word: string, files: readonly string[]): Candidate[] {
  const level = word.slice(0, word.lastIndexOf("/") + 1);
  const seen = new Map<string, Candidate>();
  for (const file of files) {
    if (!file.startsWith(word)) continue;
    const rest = file.slice(level.length);
    const slash = rest.indexOf("/");
    const candidate = slash >= 0 ? { value: `${level}${rest.slice(0, slash + 1)}`, folder: true } : { value: file };
    if (!seen.has(candidate.value)) seen.set(candidate.value, candidate);
    if (seen.size >= MAX_PATH_CANDIDATES) break;
  }
  if (seen.size === 0 && word !== "" && !word.includes("/")) {
    for (const file of files) {
      if (file.slice(file.lastIndexOf("/") + 1).startsWith(word)) seen.set(file, { value: file });
      if (seen.size >= MAX_PATH_CANDIDATES) break;
    }
  }
  return [...seen.values()].sort((a, b) => (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
}

/** The project's files, relative with "/", walked at most every INDEX_FRESH_MS. */
export class ProjectFiles {
  #files: string[] | undefined;
  #at = 0;
  /** The last walk stopped at the file count or the time limit. */
  partial = false;

  constructor(
    private readonly root: string,
    private readonly home: string,
    private readonly limits = { files: MAX_INDEXED_FILES, ms: INDEX_WALK_MS },
    /**
     * The session's own withheld paths (the team policy's denied paths), read at each walk: the runtime changes with
     * /model.
     */
    private readonly sessionWithheld: () => WithheldPredicate | undefined = () => undefined,
  ) {}

  async list(): Promise<string[]> {
    if (this.#files && Date.now() - this.#at < INDEX_FRESH_MS) return this.#files;
    const files: string[] = [];
    let base: string;
    try {
      base = realpathSync(this.root);
    } catch {
      return [];
    }
    const signal = AbortSignal.timeout(this.limits.ms);
    const stats = await walkFiles({
      root: base,
      base,
      signal,
      // The session's predicate holds the sensitive files too (tools/fileTools.ts); before a session, those alone.
      withheld: this.sessionWithheld() ?? withheldPredicate({ home: this.home }),
      onFile: (file) => {
        files.push(file.rel);
        return files.length < this.limits.files;
      },
    });
    this.partial = stats.stopped;
    this.#files = files;
    this.#at = Date.now();
    return files;
  }
}

export interface ChatCompletionDeps {
  /** The custom commands and skills of the session now (they change with /model's restart). */
  commands: () => readonly CommandInfo[];
  files: ProjectFiles;
}

export function chatCompletion(deps: ChatCompletionDeps): CompletionSource {
  return {
    async candidates(target) {
      if (target.kind === "command") return commandCandidates(deps.commands());
      return pathCandidates(target.word, await deps.files.list());
    },
    async menu(target) {
      if (target.kind === "command") {
        const all = commandCandidates(deps.commands());
        const starting = matching(target, all);
        const word = target.word.toLowerCase();
        const holding = all.filter(
          (candidate) => !starting.includes(candidate) && candidate.value.toLowerCase().includes(word),
        );
        // The name typed in full comes first: Enter runs what was typed.
        const exact = starting.filter((candidate) => candidate.value.toLowerCase() === word);
        return [...exact, ...starting.filter((candidate) => !exact.includes(candidate)), ...holding];
      }
      const files = await deps.files.list();
      const level = pathCandidates(target.word, files);
      if (target.word === "" || target.word.endsWith("/")) return level;
      const taken = new Set(level.map((candidate) => candidate.value));
      return [...level, ...fuzzyFiles(target.word, files, MAX_MENU_FILES).filter((file) => !taken.has(file.value))];
    },
    note(target) {
      if (target.kind !== "path" || !deps.files.partial) return undefined;
      return (
        `  (a large project: only the first ${groupedCount(MAX_INDEXED_FILES)} files, ` +
        `or what ${INDEX_WALK_MS / 1000} s of walking found, are offered; type the ` +
        `path)`
      );
    },
  };
}
