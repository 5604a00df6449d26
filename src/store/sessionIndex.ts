// The listing of sessions (the editor's history, newest first) without reading every session
// file each time: a SQLite cache (~/.garuda/sessions/index.sqlite, 0600, WAL, so several Garuda
// processes can share it) of each file's summary, keyed by the file and checked against its
// size and modification time. The session files stay the record: a file that changed is read
// again, a file that is gone leaves the cache, and a cache that is missing, from another
// version or damaged is rebuilt from the files. Without a working cache the files are read
// directly; a file that cannot be read is left out of the listing.
import { Database } from "bun:sqlite";
import { chmodSync, existsSync, lstatSync, readdirSync, realpathSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { sessionFolder } from "./sessionFile.ts";
import { sessionFolders, summarizeSession } from "./sessionCatalog.ts";

/** A listed session: where it belongs, its title, when it was last written. */
export interface ListedSession {
  id: string;
  file: string;
  root: string;
  title?: string;
  updatedMs: number;
}

export interface ListOptions {
  sessionsDir: string;
  /** Only the sessions of this project root (its real path); default: every project. */
  root?: string;
  /** The cache file; default index.sqlite in sessionsDir. */
  indexFile?: string;
}

/** Bumped when the table changes: an index of another version is rebuilt. */
const INDEX_VERSION = 1;

interface FileState {
  file: string;
  folder: string;
  size: number;
  mtimeMs: number;
}

interface Row {
  file: string;
  size: number;
  mtime_ms: number;
  root: string | null;
  title: string | null;
}

/** The session files of these folders with their size and modification time. */
function fileStates(folders: readonly string[]): FileState[] {
  const states: FileState[] = [];
  for (const folder of folders) {
    let names: string[];
    try {
      names = readdirSync(folder).filter((name) => name.endsWith(".jsonl"));
    } catch {
      continue;
    }
    for (const name of names) {
      const file = join(folder, name);
      try {
        const stat = lstatSync(file);
        if (stat.isFile()) states.push({ file, folder, size: stat.size, mtimeMs: Math.floor(stat.mtimeMs) });
      } catch {
        // Gone since the listing.
      }
    }
  }
  return states;
}

function summaryOrNothing(file: string): ReturnType<typeof summarizeSession> {
  try {
    return summarizeSession(file);
  } catch {
    return undefined;
  }
}

function openIndex(path: string): Database {
  const fresh = !existsSync(path);
  const db = new Database(path, { create: true, readwrite: true });
  try {
    if (fresh) chmodSync(path, 0o600);
    db.exec("PRAGMA busy_timeout = 2000");
    db.exec("PRAGMA journal_mode = WAL");
    const version = (db.query("PRAGMA user_version").get() as { user_version: number }).user_version;
    if (version !== INDEX_VERSION) {
      db.exec("DROP TABLE IF EXISTS sessions");
      db.exec(
        "CREATE TABLE sessions (file TEXT PRIMARY KEY, folder TEXT NOT NULL, size " +
          "INTEGER NOT NULL, mtime_ms INTEGER NOT NULL, root TEXT, title TEXT)",
      );
      db.exec("CREATE INDEX sessions_folder ON sessions (folder)");
      db.exec(`PRAGMA user_version = ${INDEX_VERSION}`);
    }
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/** Brings the cache's rows of these folders in line with the files; returns the listed sessions. */
function refresh(
  db: Database,
  folders: readonly string[],
  states: readonly FileState[],
  everyFolder: boolean,
): ListedSession[] {
  const rows = new Map<string, Row>();
  const select = db.query("SELECT file, size, mtime_ms, root, title FROM sessions WHERE folder = ?");
  if (everyFolder)
    for (const row of db.query("SELECT file, size, mtime_ms, root, title FROM sessions").all() as Row[])
      rows.set(row.file, row);
  else for (const folder of folders) for (const row of select.all(folder) as Row[]) rows.set(row.file, row);
  const upsert = db.query(
    "INSERT OR REPLACE INTO sessions (file, folder, size, mtime_ms, root, title) VALUES (?, ?, ?, ?, ?, ?)",
  );
  const remove = db.query("DELETE FROM sessions WHERE file = ?");
  const listed: ListedSession[] = [];
  db.transaction(() => {
    for (const state of states) {
      let row = rows.get(state.file);
      rows.delete(state.file);
      if (!row || row.size !== state.size || row.mtime_ms !== state.mtimeMs) {
        const summary = summaryOrNothing(state.file);
        row = {
          file: state.file,
          size: state.size,
          mtime_ms: state.mtimeMs,
          root: summary?.root ?? null,
          title: summary?.title ?? null,
        };
        upsert.run(row.file, state.folder, row.size, row.mtime_ms, row.root, row.title);
      }
      if (row.root !== null) listed.push(listedOf(state, row.root, row.title));
    }
    // Rows left are files that are gone.
    for (const file of rows.keys()) remove.run(file);
  })();
  return listed;
}

function listedOf(state: FileState, root: string, title: string | null | undefined): ListedSession {
  const id = state.file.slice(state.folder.length + 1, -".jsonl".length);
  return {
    id,
    file: state.file,
    root,
    ...(title !== null && title !== undefined && { title }),
    updatedMs: state.mtimeMs,
  };
}

function withoutIndex(states: readonly FileState[]): ListedSession[] {
  return states.flatMap((state) => {
    const summary = summaryOrNothing(state.file);
    return summary ? [listedOf(state, summary.root, summary.title)] : [];
  });
}

function realOrResolved(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

function removeIndex(path: string): void {
  for (const suffix of ["", "-wal", "-shm"]) rmSync(`${path}${suffix}`, { force: true });
}

/** The sessions, newest first (ties: the larger id first). */
export function listSessionsIndexed(options: ListOptions): ListedSession[] {
  const everyFolder = options.root === undefined;
  const folders = everyFolder
    ? sessionFolders(options.sessionsDir)
    : [sessionFolder(options.sessionsDir, options.root as string)];
  const states = fileStates(folders);
  const indexFile = options.indexFile ?? join(options.sessionsDir, "index.sqlite");
  let listed: ListedSession[] | undefined;
  if (existsSync(options.sessionsDir)) {
    for (let attempt = 0; attempt < 2 && listed === undefined; attempt++) {
      try {
        const db = openIndex(indexFile);
        try {
          listed = refresh(db, folders, states, everyFolder);
        } finally {
          db.close();
        }
      } catch {
        // A damaged cache (or one SQLite cannot open) is rebuilt once from the files.
        if (attempt === 0) removeIndex(indexFile);
      }
    }
  }
  listed ??= withoutIndex(states);
  // A folder is named by the hash of its root; a collision of names must not mix two projects.
  const root = options.root === undefined ? undefined : realOrResolved(options.root);
  const shown = root === undefined ? listed : listed.filter((session) => session.root === root);
  return shown.sort((a, b) => b.updatedMs - a.updatedMs || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
}
