// Reading the files of custom commands, skills and agents: regular files only (a symbolic link
// is refused, so a project cannot point Garuda at a file outside it), capped in size, and
// listed with limits on depth and count. Problems become notices, never exceptions.
import { constants, lstatSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { sha256Hex } from "../config/trust.ts";
import { codeOf } from "../errors/caught.ts";
import { entryKind } from "../files/entryKind.ts";
import { groupedCount } from "../text/count.ts";

export type FileRead = { text: string; hash: string } | { problem: string };

/** A name part of a command, skill or agent: lower case letters, digits, `_` and `-`. */
export const NAME_PART = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** Reads a regular file (not a symlink) of at most `maxChars` characters, with its SHA-256. */
export function readExtensionFile(path: string, maxChars: number): FileRead {
  let bytes: Buffer;
  try {
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) return { problem: "is a symbolic link, which Garuda does not follow here" };
    if (!stat.isFile()) return { problem: "is not a regular file" };
    // UTF-8 takes at most 4 bytes a character.
    if (stat.size > maxChars * 4) return { problem: `is larger than ${groupedCount(maxChars)} characters` };
    // O_NOFOLLOW: a symlink put in its place since the check is refused too; O_NONBLOCK: so is a
    // FIFO (it opens at once instead of waiting for a writer, and reads as empty or EAGAIN).
    bytes = readFileSync(path, { flag: constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK });
  } catch (error) {
    const code = codeOf(error);
    if (code === "ELOOP") return { problem: "is a symbolic link, which Garuda does not follow here" };
    if (code === "ENOENT") return { problem: "does not exist (any more)" };
    if (code === "EISDIR") return { problem: "is not a regular file" };
    return { problem: `cannot be read (${code ?? String(error)})` };
  }
  const text = bytes.toString("utf8");
  if (text.length > maxChars) return { problem: `is larger than ${groupedCount(maxChars)} characters` };
  if (text.includes("\u0000")) return { problem: "is not a text file" };
  return { text, hash: sha256Hex(bytes) };
}

export interface ListedFile {
  path: string;
  /** The folders below the listed one and the file's name without `.md`, lower-cased. */
  parts: string[];
}

export interface ListOptions {
  /** Folders below the top one that are searched (0: the top folder only). */
  maxDepth: number;
  maxFiles: number;
  /** Only names ending in this (e.g. ".md"); the suffix is removed from the last part. */
  suffix: string;
}

/**
 * The files of a folder tree with names fit for commands (NAME_PART per part), sorted. Symlinks,
 * odd names and files past the limits are left out with a notice each; a missing folder is empty.
 */
export function listFiles(dir: string, options: ListOptions, notices: string[]): ListedFile[] {
  const kind = entryKind(dir);
  if (kind === "missing") return [];
  if (kind !== "dir") {
    notices.push(`${dir} is ${kind === "symlink" ? "a symbolic link" : "not a folder"}, so Garuda does not read it.`);
    return [];
  }
  const found: ListedFile[] = [];
  let skippedOver = false;
  const walk = (folder: string, parts: string[], depth: number) => {
    let names: string[];
    try {
      names = readdirSync(folder).sort();
    } catch {
      notices.push(`${folder} cannot be read.`);
      return;
    }
    for (const name of names) {
      if (name.startsWith(".")) continue;
      const path = join(folder, name);
      const entry = entryKind(path);
      if (entry === "symlink") {
        notices.push(`${path} is a symbolic link, which Garuda does not follow; it was skipped.`);
        continue;
      }
      if (entry === "dir") {
        if (options.maxDepth === 0) continue;
        if (depth >= options.maxDepth)
          notices.push(`${path} is more than ${options.maxDepth} folders deep, so the files in it were skipped.`);
        else if (!NAME_PART.test(name.toLowerCase()))
          notices.push(
            `${path}: its name is not a valid name part (letters, digits, "_" and "-"), so ` +
              `the files in it were skipped.`,
          );
        else walk(path, [...parts, name.toLowerCase()], depth + 1);
        continue;
      }
      if (entry !== "file" || !name.endsWith(options.suffix)) continue;
      const base = name.slice(0, name.length - options.suffix.length).toLowerCase();
      if (!NAME_PART.test(base)) {
        notices.push(
          `${path}: its name is not a valid command name (letters, digits, "_" and "-"), so it was skipped.`,
        );
        continue;
      }
      if (found.length >= options.maxFiles) {
        skippedOver = true;
        continue;
      }
      found.push({ path, parts: [...parts, base] });
    }
  };
  walk(dir, [], 0);
  if (skippedOver) notices.push(`${dir} holds more than ${options.maxFiles} files; the rest were skipped.`);
  return found;
}
