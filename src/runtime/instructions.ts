// The project's instruction files (GARUDA.md, AGENTS.md, CLAUDE.md at the root) for the system
// prompt: one shared budget given to GARUDA.md first, identical texts once, and only files whose
// real path is inside the root (a symlink to ~/.ssh/config is not an instruction file).
import { realpathSync } from "node:fs";
import { join, relative, isAbsolute } from "node:path";
import { readRegularFile } from "../files/regularFile.ts";
import { groupedCount } from "../text/count.ts";

const INSTRUCTION_FILES = ["GARUDA.md", "AGENTS.md", "CLAUDE.md"] as const;
export const INSTRUCTIONS_BUDGET = 40_000;
/** A file larger than this is not read at all. */
const MAX_FILE_BYTES = 1_000_000;

export interface InstructionFile {
  name: string;
  text: string;
  /** Cut to fit the budget. */
  cut: boolean;
}

export interface InstructionsRead {
  files: InstructionFile[];
  /** For the user: files left out and why. */
  notes: string[];
}

function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel);
}

/** Cuts at `length` without leaving half of a surrogate pair (which breaks the request's JSON). */
function safeSlice(text: string, length: number): string {
  const code = text.charCodeAt(length - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? length - 1 : length);
}

export function readInstructions(root: string, budget = INSTRUCTIONS_BUDGET): InstructionsRead {
  const files: InstructionFile[] = [];
  const notes: string[] = [];
  const seen = new Set<string>();
  let realRoot: string;
  try {
    realRoot = realpathSync(root);
  } catch {
    return { files, notes };
  }
  let left = budget;
  for (const name of INSTRUCTION_FILES) {
    let real: string;
    try {
      real = realpathSync(join(root, name));
    } catch {
      continue;
    }
    if (!inside(realRoot, real)) {
      notes.push(`${name} was not read: it points outside the project.`);
      continue;
    }
    // A regular file only: a FIFO named AGENTS.md would otherwise hold session/new (and the process) forever.
    const read = readRegularFile(real, { maxBytes: MAX_FILE_BYTES });
    if (!("bytes" in read)) {
      if (read.problem === "too_big")
        notes.push(`${name} was not read: it is larger than ${MAX_FILE_BYTES / 1_000_000} MB.`);
      else if (read.problem === "not_regular")
        notes.push(`${name} was not read: it is not a regular file (a pipe, socket or device).`);
      continue;
    }
    const text = read.bytes.toString("utf8").replace(/\r\n/g, "\n").trim();
    if (text === "" || seen.has(text)) continue;
    seen.add(text);
    if (left <= 0) {
      notes.push(`${name} was not read: the instruction files passed ${groupedCount(budget)} characters.`);
      continue;
    }
    const cut = text.length > left;
    if (cut) notes.push(`${name} was cut: the instruction files passed ${groupedCount(budget)} characters.`);
    const kept = cut ? safeSlice(text, left) : text;
    left -= kept.length;
    files.push({ name, text: kept, cut });
  }
  return { files, notes };
}
