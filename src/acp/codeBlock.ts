// Text as a Markdown fenced code block. Editors render an agent's text as Markdown (Zed does for
// tool call content too), so output sent as plain text loses its lines (a single newline is a
// space) and its `*`, `#`, `_` and links turn into markup. Inside a fence every line stays as it
// is and nothing is markup. The fence is longer than any run of backticks in the text, so no
// line of the text (a file, a command's output) can close it and put Markdown after it.
import { basename, extname } from "node:path";

/** A fence longer than any run of backticks in `text` (at least three). */
export function fence(text: string): string {
  let longest = 0;
  for (const run of text.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  return "`".repeat(Math.max(3, longest + 1));
}

/**
 * `text` in a fenced block. `info` follows the opening fence (a language, or a label such as a
 * URI); line breaks and backticks in it become blanks, so it stays on the fence's line.
 */
export function codeBlock(text: string, info = ""): string {
  const marks = fence(text);
  const body = text.endsWith("\n") ? text : `${text}\n`;
  return `${marks}${info.replace(/[\r\n`]/g, " ")}\n${body}${marks}`;
}

/** `text` as inline code on one line, between backtick runs of a length the text does not hold. */
export function inlineCode(text: string): string {
  const line = text.replace(/[\r\n]+/g, " ");
  const runs = new Set((line.match(/`+/g) ?? []).map((run) => run.length));
  let n = 1;
  while (runs.has(n)) n++;
  const ticks = "`".repeat(n);
  // The renderer drops one blank on each side; it keeps a backtick at either end apart.
  const pad = line.startsWith("`") || line.endsWith("`") || (line.startsWith(" ") && line.endsWith(" ")) ? " " : "";
  return `${ticks}${pad}${line}${pad}${ticks}`;
}

/**
 * Text from elsewhere (a web page's title) shown inside prose: every character Markdown could
 * take as markup is escaped, so it cannot become a link, an image (a request to any server) or
 * emphasis.
 */
export function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]<>()#+\-.!|~]/g, (char) => `\\${char}`);
}

/** The common extensions under the language names Markdown renderers know. */
const LANGUAGES: Readonly<Record<string, string>> = {
  ts: "typescript",
  mts: "typescript",
  cts: "typescript",
  tsx: "tsx",
  js: "javascript",
  mjs: "javascript",
  cjs: "javascript",
  jsx: "jsx",
  py: "python",
  rs: "rust",
  go: "go",
  rb: "ruby",
  java: "java",
  kt: "kotlin",
  swift: "swift",
  c: "c",
  h: "c",
  cc: "cpp",
  cpp: "cpp",
  hpp: "cpp",
  cs: "csharp",
  php: "php",
  sh: "bash",
  bash: "bash",
  zsh: "bash",
  fish: "fish",
  json: "json",
  jsonc: "jsonc",
  yaml: "yaml",
  yml: "yaml",
  toml: "toml",
  md: "markdown",
  html: "html",
  css: "css",
  scss: "scss",
  sql: "sql",
  lua: "lua",
  ex: "elixir",
  exs: "elixir",
  el: "elisp",
  nix: "nix",
  diff: "diff",
  patch: "diff",
};

const FILE_NAMES: Readonly<Record<string, string>> = { makefile: "make", dockerfile: "dockerfile", justfile: "just" };

/**
 * The language tag for a file's text: a known name for common extensions, else the extension
 * itself when it is a plain word (Zed also looks languages up by extension); undefined when there
 * is none.
 */
export function languageOf(path: string): string | undefined {
  const name = basename(path).toLowerCase();
  const known = FILE_NAMES[name];
  if (known) return known;
  const extension = extname(name).slice(1);
  if (extension === "") return undefined;
  return LANGUAGES[extension] ?? (/^[a-z0-9][a-z0-9+_-]{0,15}$/.test(extension) ? extension : undefined);
}
