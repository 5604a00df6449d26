// Custom commands: Markdown files under ~/.garuda/commands/ (the user's, trusted) and
// <root>/.garuda/commands/ (the project's, run only after a consent). `review.md` is /review;
// `git/commit.md` is /git:commit. Optional frontmatter: `description`, `argument-hint`.
import { parseMarkdown, textField } from "./frontmatter.ts";
import { listFiles, readExtensionFile } from "./extensionFiles.ts";

export const MAX_COMMAND_CHARS = 20_000;
const MAX_COMMAND_FILES = 200;
/** Subfolder levels below commands/ that give `dir:name` commands. */
const MAX_COMMAND_DEPTH = 3;

export type ExtensionScope = "user" | "project";

export interface CommandFile {
  /** e.g. "review", "git:commit". */
  name: string;
  scope: ExtensionScope;
  path: string;
  description: string;
  argumentHint?: string;
}

/** A command's text as it is now. */
export interface CommandText {
  body: string;
  /** SHA-256 of the file: what a consent pins. */
  hash: string;
}

function firstLine(body: string): string {
  const line = body.split("\n").find((text) => text.trim().length > 0) ?? "";
  return line.replace(/^#+\s*/, "").trim();
}

/** Reads one command file; a problem (too large, empty, a symlink) is a sentence about the file. */
export function readCommandText(path: string): CommandText | { problem: string } {
  const read = readExtensionFile(path, MAX_COMMAND_CHARS);
  if ("problem" in read) return read;
  const { body } = parseMarkdown(read.text);
  if (body.length === 0) return { problem: "is empty" };
  return { body, hash: read.hash };
}

/** The commands of one folder, sorted by name; files that cannot be used give notices. */
export function loadCommandFiles(dir: string, scope: ExtensionScope, notices: string[]): CommandFile[] {
  const commands: CommandFile[] = [];
  for (const file of listFiles(
    dir,
    { maxDepth: MAX_COMMAND_DEPTH, maxFiles: MAX_COMMAND_FILES, suffix: ".md" },
    notices,
  )) {
    const read = readExtensionFile(file.path, MAX_COMMAND_CHARS);
    if ("problem" in read) {
      notices.push(`The command file ${file.path} ${read.problem}; it was skipped.`);
      continue;
    }
    const { fields, body } = parseMarkdown(read.text);
    if (body.length === 0) {
      notices.push(`The command file ${file.path} is empty; it was skipped.`);
      continue;
    }
    const argumentHint = textField(fields, "argument-hint");
    commands.push({
      name: file.parts.join(":"),
      scope,
      path: file.path,
      description: textField(fields, "description") ?? firstLine(body),
      ...(argumentHint && { argumentHint }),
    });
  }
  return commands.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
