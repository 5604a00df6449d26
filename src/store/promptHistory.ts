// The chat's prompt history, kept across sessions per project: ~/.garuda/history/<project>-<hash8>.json
// (0600, the folder 0700), so Up/Down and Ctrl-R find what was typed yesterday in the same project
// and nothing of another's. Each prompt added rewrites the file whole (temp file, fsync, rename:
// a crash leaves the old list or the new one) after reading it again, so two chats of one project
// both keep theirs. The list is bounded: the newest MAX_ENTRIES prompts within MAX_FILE_BYTES; a
// prompt over MAX_ENTRY_CHARS is not kept. Key and token shapes are redacted on disk, as in the
// session files. A file that is missing, too large or damaged is an empty history, never an error.
import { closeSync, constants, fstatSync, openSync, readFileSync } from "node:fs";
import { writeFileAtomic } from "../files/atomicWrite.ts";
import { createRedactor } from "./redact.ts";
import { sessionFolder } from "./sessionFile.ts";

/** One prompt as typed: its text, with the collapsed pastes it holds ("[Pasted 3,000 lines]" → the text). */
export interface HistoryEntry {
  text: string;
  pastes?: Array<[placeholder: string, text: string]>;
}

export const MAX_ENTRIES = 500;
export const MAX_ENTRY_CHARS = 256 * 1024;
export const MAX_FILE_BYTES = 2 * 1024 * 1024;
const FORMAT_VERSION = 1;

/** The history file of a project (the same `<name>-<hash8>` as its session folder). */
export function historyFile(historyDir: string, root: string): string {
  return `${sessionFolder(historyDir, root)}.json`;
}

const entryChars = (entry: HistoryEntry) =>
  entry.text.length + (entry.pastes ?? []).reduce((sum, [mark, text]) => sum + mark.length + text.length, 0);

function isEntry(value: unknown): value is HistoryEntry {
  if (typeof value !== "object" || value === null) return false;
  const { text, pastes } = value as { text?: unknown; pastes?: unknown };
  if (typeof text !== "string") return false;
  return (
    pastes === undefined ||
    (Array.isArray(pastes) &&
      pastes.every(
        (pair) => Array.isArray(pair) && pair.length === 2 && pair.every((part) => typeof part === "string"),
      ))
  );
}

/** The project's prompts, oldest first. */
export function readHistory(file: string): HistoryEntry[] {
  let fd: number | undefined;
  try {
    // Opened without waiting and checked on the open file: a FIFO or a link to /dev/zero at this
    // name would otherwise hang the chat at start and at every prompt.
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.size > MAX_FILE_BYTES * 2) return [];
    const parsed = JSON.parse(readFileSync(fd, "utf8")) as { version?: unknown; entries?: unknown };
    if (parsed.version !== FORMAT_VERSION || !Array.isArray(parsed.entries)) return [];
    return parsed.entries.filter(isEntry).slice(-MAX_ENTRIES);
  } catch {
    return [];
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** The newest entries that fit the bounds, oldest first. */
export function bounded(entries: readonly HistoryEntry[]): HistoryEntry[] {
  const kept: HistoryEntry[] = [];
  let bytes = 0;
  for (let i = entries.length - 1; i >= 0 && kept.length < MAX_ENTRIES; i--) {
    const entry = entries[i] as HistoryEntry;
    const size = Buffer.byteLength(JSON.stringify(entry));
    if (bytes + size > MAX_FILE_BYTES) break;
    bytes += size;
    kept.push(entry);
  }
  return kept.reverse();
}

const redact = createRedactor();
const redacted = (entry: HistoryEntry): HistoryEntry => ({
  text: redact(entry.text),
  ...(entry.pastes && { pastes: entry.pastes.map(([mark, text]) => [mark, redact(text)] as [string, string]) }),
});

/**
 * Adds a prompt to the file (after what other chats added meanwhile). The same prompt twice in a
 * row is kept once. Throws when the file cannot be written; the caller says so and goes on.
 */
export function appendHistory(file: string, entry: HistoryEntry): void {
  if (entry.text.trim() === "" || entryChars(entry) > MAX_ENTRY_CHARS) return;
  const entries = readHistory(file);
  const next = redacted(entry);
  const last = entries.at(-1);
  if (last && JSON.stringify(last) === JSON.stringify(next)) return;
  entries.push(next);
  writeFileAtomic(file, `${JSON.stringify({ version: FORMAT_VERSION, entries: bounded(entries) })}\n`, {
    mode: 0o600,
    dirMode: 0o700,
  });
}
