// A static reading of src/ for the dependency rules of DESIGN.md. Pure functions over
// (path → source) maps, so each rule can be shown to catch a planted violation.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";

export type SourceTree = Map<string, string>;

export interface Violation {
  rule: number;
  file: string;
  detail: string;
}

/** Every .ts file under src/, keyed by its path relative to the repository (src/…). */
export function readSourceTree(repo: string): SourceTree {
  const tree: SourceTree = new Map();
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(repo, dir), { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.(ts|tsx)$/.test(entry.name)) tree.set(path, readFileSync(join(repo, path), "utf8"));
    }
  };
  walk("src");
  return tree;
}

/** Removes comments so a rule is not tripped by prose. Strings stay: imports live in them. */
function stripComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`\\])\/\/.*$/gm, "$1");
}

export interface ImportRef {
  specifier: string;
  dynamic: boolean;
  /** `import type`: erased at build time, so it loads nothing, but it still couples layers. */
  typeOnly: boolean;
}

export function importsOf(source: string): ImportRef[] {
  const code = stripComments(source);
  const refs: ImportRef[] = [];
  for (const match of code.matchAll(
    /(?:^|[\s;])(?:import|export)\s+(?:type\s+)?(?:[^'"`;]*?\sfrom\s+)?["']([^"']+)["']/g,
  )) {
    const typeOnly = /^\s*;?\s*(?:import|export)\s+type\s/.test(match[0]);
    refs.push({ specifier: match[1] as string, dynamic: false, typeOnly });
  }
  for (const match of code.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g))
    refs.push({ specifier: match[1] as string, dynamic: true, typeOnly: false });
  for (const match of code.matchAll(/\brequire\(\s*["']([^"']+)["']\s*\)/g))
    refs.push({ specifier: match[1] as string, dynamic: false, typeOnly: false });
  return refs;
}

/** A relative specifier resolved to a tree path (src/…), or the package name. */
export function resolveRef(from: string, specifier: string): string {
  if (!specifier.startsWith(".")) return specifier;
  return normalize(join(dirname(from), specifier));
}

const under = (file: string, dir: string) => file === dir || file.startsWith(`${dir}/`);
const isPackage = (target: string, name: string) => target === name || target.startsWith(`${name}/`);

const STDOUT_WRITE = /process\.stdout\.write|console\.(log|info|debug|table|dir)\s*\(|Bun\.stdout\b/;
const SPAWN = /Bun\.spawn(Sync)?\b|\bBun\.\$|node:child_process|["']child_process["']/;
const FILE_WRITE = new RegExp(
  String.raw`\b(writeFileSync|writeFile|appendFileSync|appendFile|renameSync|rename|rmSync|rm|unlinkSync|unlink` +
    "|mkdirSync|mkdir|mkdtempSync|mkdtemp|openSync|createWriteStream|copyFileSync|cpSync|symlinkSync|truncateSync" +
    String.raw`)\s*\(|Bun\.write\s*\(`,
);
/**
 * Where files may be written: tools and stores (the project root), config (~/.garuda only),
 * the sandbox (its own private temp folders and mount points only), and of src/files only the
 * atomic writer those use (a whole file or nothing), so the store and the sandbox need not
 * import config/ for it.
 */
const FILE_WRITERS = ["src/tools", "src/store", "src/config", "src/sandbox", "src/files/atomicWrite.ts"];
/**
 * An open for reading only (O_RDONLY, or "r", and no flag that creates, truncates or writes in
 * the same call) writes nothing: src/files/regularFile.ts opens settings files that way.
 */
const READ_ONLY_OPEN = new RegExp(
  String.raw`\bopenSync\s*\(\s*[^,()]+,\s*` +
    String.raw`(?:(?:constants\.)?O_RDONLY\b(?![^;]*\bO_(?:CREAT|TRUNC|APPEND|WRONLY|RDWR)\b)|["']r["']\s*[,)])`,
  "g",
);

/** Rule 10: the one module that reaches the C library (dlopen of libc), and so the only one that names bun:ffi. */
export const NATIVE_MODULE = "src/sandbox/native.ts";
const FFI = /["']bun:ffi["']/;
/** bun:ffi's run-time C compiler (TinyCC): never used, whatever the module. */
const FFI_CC =
  /\bcc\s*\(|\bcc\b\s*[,}][^;]*\bfrom\s*["']bun:ffi["']|\.cc\s*\(|\{[^}]*\bcc\b[^}]*\}\s*=\s*(?:ffi|require|await)/;

/**
 * The one file of src/cli/ that src/acp/ imports: HIDDEN_WARNING, the warning both front ends put first in a question
 * (spec/acp-design.txt, Files).
 */
const SHARED_QUESTION_TEXT = "src/cli/approver.ts";

export function checkRules(tree: SourceTree): Violation[] {
  const violations: Violation[] = [];
  for (const [file, source] of tree) {
    const code = stripComments(source);
    const inCli = under(file, "src/cli");
    const inAcp = under(file, "src/acp");
    for (const ref of importsOf(source)) {
      const target = resolveRef(file, ref.specifier);
      if (!inCli && !inAcp && (under(target, "src/cli") || under(target, "src/acp"))) {
        violations.push({ rule: 1, file, detail: `the core imports a front end (${ref.specifier})` });
      }
      if (isPackage(target, "@agentclientprotocol/sdk") && !inAcp) {
        violations.push({ rule: 2, file, detail: "imports the ACP SDK outside src/acp/" });
      }
      if (under(target, "src/acp") && !inAcp && !(file === "src/cli/acpCommand.ts" && ref.dynamic)) {
        violations.push({ rule: 2, file, detail: "loads src/acp/ (only acpCommand.ts may, with import())" });
      }
      if (inAcp && under(target, "src/cli") && target !== SHARED_QUESTION_TEXT) {
        violations.push({
          rule: 9,
          file,
          detail:
            `src/acp/ imports ${target} (of src/cli/ only ${SHARED_QUESTION_TEXT}; what ` +
            `both front ends use goes to src/display/)`,
        });
      }
      if (isPackage(target, "@anthropic-ai/sdk") && file !== "src/model/anthropic.ts") {
        violations.push({ rule: 3, file, detail: "imports the Anthropic SDK outside src/model/anthropic.ts" });
      }
      if (isPackage(target, "citty") && !inCli)
        violations.push({ rule: 4, file, detail: "imports citty outside src/cli/" });
    }
    if (FFI.test(code) && file !== NATIVE_MODULE)
      violations.push({ rule: 10, file, detail: `names bun:ffi outside ${NATIVE_MODULE}` });
    if (FFI_CC.test(code)) violations.push({ rule: 10, file, detail: "uses bun:ffi's cc (C compiled at run time)" });
    if (inAcp && SPAWN.test(code)) violations.push({ rule: 2, file, detail: "src/acp/ starts a process" });
    if (inAcp && STDOUT_WRITE.test(code)) violations.push({ rule: 2, file, detail: "src/acp/ writes stdout itself" });
    if (!inCli && STDOUT_WRITE.test(code))
      violations.push({ rule: 5, file, detail: "writes to stdout outside src/cli/" });
    if (!under(file, "src/sandbox") && SPAWN.test(code))
      violations.push({ rule: 6, file, detail: "starts a process outside src/sandbox/" });
    if (!FILE_WRITERS.some((dir) => under(file, dir)) && FILE_WRITE.test(code.replace(READ_ONLY_OPEN, "read("))) {
      violations.push({ rule: 7, file, detail: `writes files outside ${FILE_WRITERS.join(", ")}` });
    }
  }
  return violations;
}

/** Calls that stop the event loop until something else happens: a sleep, a synchronous child, a futex wait. */
const BLOCKING = /\b(?:sleepSync|spawnSync|execSync|execFileSync)\s*\(|\bAtomics\.wait\s*\(/g;
/** libc calls that can wait on a peer, bound through bun:ffi (native.ts binds only calls that return at once). */
const BLOCKING_LIBC = new RegExp(
  String.raw`\b(?:connect|accept4?|recv|recvfrom|read|poll|ppoll|select|pselect|epoll_wait|sleep|usleep` +
    String.raw`|nanosleep|flock|wait|wait4)\s*:\s*\{\s*args`,
  "g",
);

/** Each blocking call in the tree (comments left out): its file and what it is. */
export function blockingCalls(tree: SourceTree): Array<{ file: string; call: string }> {
  const found: Array<{ file: string; call: string }> = [];
  for (const [file, source] of tree) {
    const code = stripComments(source);
    for (const match of code.matchAll(BLOCKING)) found.push({ file, call: match[0] });
    for (const match of code.matchAll(BLOCKING_LIBC)) found.push({ file, call: match[0] });
  }
  return found;
}

/** The most lines a file of src/ has (DESIGN.md: small single-purpose files, issue 30). */
export const MAX_FILE_LINES = 400;

/** How many lines `source` has, as `wc -l` counts them (a last line without a newline counts too). */
export function lineCount(source: string): number {
  if (source === "") return 0;
  return source.split("\n").length - (source.endsWith("\n") ? 1 : 0);
}

/** Each file of the tree over `max` lines, with its count, longest first. */
export function longFiles(tree: SourceTree, max = MAX_FILE_LINES): Array<{ file: string; lines: number }> {
  return [...tree]
    .map(([file, source]) => ({ file, lines: lineCount(source) }))
    .filter((found) => found.lines > max)
    .sort((a, b) => b.lines - a.lines || a.file.localeCompare(b.file));
}

/** The modules loaded at start-up from `entries`: static imports followed, import() not. */
export function staticClosure(tree: SourceTree, entries: string[]): Set<string> {
  const seen = new Set<string>();
  const queue = [...entries];
  while (queue.length > 0) {
    const file = queue.pop() as string;
    if (seen.has(file)) continue;
    seen.add(file);
    const source = tree.get(file);
    if (source === undefined) continue;
    for (const ref of importsOf(source)) if (!ref.dynamic && !ref.typeOnly) queue.push(resolveRef(file, ref.specifier));
  }
  return seen;
}

/** What start-up must not load: both SDKs, and the chat's Markdown lexer and highlighter. */
export const LAZY_PACKAGES = ["@anthropic-ai/sdk", "@agentclientprotocol/sdk", "marked", "highlight.js"] as const;

/** Rule 8: what `garuda --version` and `garuda --help` load must hold neither SDK nor the Markdown libraries. */
export function checkStartup(tree: SourceTree, entries: string[]): Violation[] {
  const loaded = staticClosure(tree, entries);
  const violations: Violation[] = [];
  for (const name of LAZY_PACKAGES) {
    for (const module of loaded) {
      if (isPackage(module, name))
        violations.push({ rule: 8, file: entries.join(", "), detail: `start-up loads ${name}` });
    }
  }
  return violations;
}

/** The folder of src/ a file belongs to: src/runtime/loop.ts → src/runtime; src/version.ts → src. */
export function folderOf(file: string): string {
  const parts = file.split("/");
  return parts.length > 2 ? parts.slice(0, 2).join("/") : "src";
}

export type ImportGraph = Map<string, Set<string>>;

/** Who imports whom inside src/, every kind of import (a type import couples layers too). */
export function importGraph(tree: SourceTree, node: (file: string) => string = (file) => file): ImportGraph {
  const graph: ImportGraph = new Map();
  for (const [file, source] of tree) {
    const from = node(file);
    if (!graph.has(from)) graph.set(from, new Set());
    for (const ref of importsOf(source)) {
      const target = resolveRef(file, ref.specifier);
      if (!tree.has(target)) continue;
      const to = node(target);
      if (to !== from) graph.get(from)?.add(to);
    }
  }
  return graph;
}

/** The strongly connected parts of more than one node (Tarjan), each sorted: every import cycle. */
export function importCycles(graph: ImportGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let next = 0;
  const visit = (node: string) => {
    index.set(node, next);
    low.set(node, next);
    next += 1;
    stack.push(node);
    onStack.add(node);
    for (const to of graph.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node) as number, low.get(to) as number));
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node) as number, index.get(to) as number));
    }
    if (low.get(node) !== index.get(node)) return;
    const part: string[] = [];
    for (;;) {
      const top = stack.pop() as string;
      onStack.delete(top);
      part.push(top);
      if (top === node) break;
    }
    if (part.length > 1) cycles.push(part.sort());
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return cycles.sort((a, b) => (a[0] as string).localeCompare(b[0] as string));
}
