// The secrets on the one list (secrets.ts) by identity: the device and inode of every file and
// folder at or under a secret place that exists. A name says nothing about a hard link in the
// project to ~/.ssh/id_rsa, or about ~/.ssh bind-mounted into it, but the identity is the same; the
// permission engine and the file tools compare against this set where they compare names.
//
// Built by walking the places asynchronously (nothing waits on the event loop), at most
// MAX_ENTRIES entries; the key places come first in the list, Garuda's own stores last
// (secretPlaces(): HOME_STORES), so a cut (a huge ~/.garuda/snapshots) leaves out the stores, never
// the keys; a cut is reported once (onCut: a notice for the user and the model). Kept per folder with the
// folder's device, inode and ctime: a file can take a name in a folder (created, renamed, linked)
// only by changing that folder's ctime, so a revalidation looks at each folder once (lstat) and
// reads again only the folders that changed. A revalidation runs at most every REVALIDATE_MS.
// Symlinks inside a place count by their target (a dotfiles manager's ~/.ssh/id_rsa → elsewhere),
// looked at again on each revalidation (the target can change without the place's folder changing).
import type { BigIntStats } from "node:fs";
import { lstat, readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import type { SecretPlace } from "./secrets.ts";

/** The key of an identity, as fstat and lstat give it (numbers; inodes past 2^53 would not match). */
export const identityKey = (dev: number | bigint, ino: number | bigint): string => `${dev}:${ino}`;

export interface SecretIdentitySet {
  /** The secret (its path on the list) that has this identity, or undefined. */
  secretOf(dev: number, ino: number): string | undefined;
  /** Every identity's key, for a worker thread (identityKey()). */
  keys(): string[];
  /** The walk stopped at MAX_ENTRIES: files under the last places may be missing. */
  cut: boolean;
}

export const MAX_ENTRIES = 50_000;
const MAX_DEPTH = 32;
const REVALIDATE_MS = 1_000;

interface FolderRecord {
  /** The folder's device, inode and ctime when it was read. */
  stamp: string;
  /** Its files: [identity key, path]. */
  files: Array<[string, string]>;
  /** Its symlinks' paths (counted by their targets, looked at each time). */
  links: string[];
  /** Its folders' paths. */
  folders: string[];
}

const stampOf = (stats: BigIntStats) => `${stats.dev}:${stats.ino}:${stats.ctimeNs}`;

async function lstatOrNone(path: string): Promise<BigIntStats | undefined> {
  try {
    return await lstat(path, { bigint: true });
  } catch {
    return undefined;
  }
}

function setOf(ids: Map<string, string>, cut: boolean): SecretIdentitySet {
  // The inodes alone first: a search asks for every file it lists, and almost none shares a
  // secret's inode, so most answers need no key made.
  const inodes = new Set<number>();
  for (const key of ids.keys()) inodes.add(Number(key.slice(key.indexOf(":") + 1)));
  return {
    secretOf: (dev, ino) => (inodes.has(ino) ? ids.get(identityKey(dev, ino)) : undefined),
    keys: () => [...ids.keys()],
    cut,
  };
}

/** One walk's state: the new records, the identities found, and the entries still allowed. */
interface Walk {
  records: Map<string, FolderRecord>;
  ids: Map<string, string>;
  budget: number;
  /** The place the walk was in when the budget ran out. */
  cutIn?: string;
}

export interface SecretIdentitiesOptions {
  /** Called once, the first time a walk stops at MAX_ENTRIES, with what to tell the user and the model. */
  onCut?: (text: string) => void;
  /** Most entries walked (default MAX_ENTRIES); smaller in tests. */
  maxEntries?: number;
}

/** What a cut means, for the user and the model. */
export function cutNotice(place: string, maxEntries: number): string {
  return (
    `Garuda's list of secrets by identity stopped at ` +
    `${String(maxEntries).replace(/\B(?=(\d{3})+$)/g, ",")} files, in ${place}: a ` +
    `hard link (or a bind mount) of a file after that point is not recognized as ` +
    `that secret by the file tools. Secrets are still refused by their names and ` +
    `places, and the sandbox still hides them from commands. Clearing old sessions ` +
    `and undo snapshots (~/.garuda/sessions, ~/.garuda/snapshots) brings the list ` +
    `back under the cap.`
  );
}

export class SecretIdentities {
  readonly #places: readonly string[];
  readonly #options: SecretIdentitiesOptions;
  #cutReported = false;
  #records = new Map<string, FolderRecord>();
  #latest: SecretIdentitySet = setOf(new Map(), false);
  #checkedAt = Number.NEGATIVE_INFINITY;
  #running: Promise<SecretIdentitySet> | undefined;

  constructor(places: readonly SecretPlace[], options: SecretIdentitiesOptions = {}) {
    this.#places = places.map((place) => place.path);
    this.#options = options;
  }

  /** The set as last built (empty before the first current()); for checks that cannot wait. */
  latest(): SecretIdentitySet {
    return this.#latest;
  }

  /** The set, revalidated first when it is older than REVALIDATE_MS. Never throws. */
  current(): Promise<SecretIdentitySet> {
    if (performance.now() - this.#checkedAt < REVALIDATE_MS) return Promise.resolve(this.#latest);
    this.#running ??= this.#revalidate().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  async #revalidate(): Promise<SecretIdentitySet> {
    const maxEntries = this.#options.maxEntries ?? MAX_ENTRIES;
    const walk: Walk = { records: new Map(), ids: new Map(), budget: maxEntries };
    try {
      for (const place of this.#places) {
        if (walk.budget <= 0) break;
        const stats = await lstatOrNone(place);
        if (stats === undefined) continue;
        await this.#visit(place, stats, walk, 0);
        if (walk.budget <= 0) walk.cutIn = place;
      }
    } catch {
      // A place that cannot be read is left out; what was found still counts.
    }
    this.#records = walk.records;
    this.#latest = setOf(walk.ids, walk.budget <= 0);
    this.#checkedAt = performance.now();
    if (this.#latest.cut && !this.#cutReported) {
      this.#cutReported = true;
      this.#options.onCut?.(cutNotice(walk.cutIn ?? "the secret places", maxEntries));
    }
    return this.#latest;
  }

  /** Adds the entry at `path` (its lstat given) and, for a folder, what is under it. */
  async #visit(path: string, stats: BigIntStats, walk: Walk, depth: number): Promise<void> {
    if (walk.budget-- <= 0) return;
    if (stats.isSymbolicLink()) return addTarget(path, walk);
    walk.ids.set(identityKey(stats.dev, stats.ino), path);
    if (!stats.isDirectory() || depth >= MAX_DEPTH) return;
    const stamp = stampOf(stats);
    let record = this.#records.get(path);
    if (record === undefined || record.stamp !== stamp) record = await this.#read(path, stamp, walk);
    walk.records.set(path, record);
    for (const [key, file] of record.files) walk.ids.set(key, file);
    await Promise.all(record.links.map((link) => addTarget(link, walk)));
    walk.budget -= record.files.length + record.links.length;
    // A folder's subfolders side by side (a store of 256 object folders is one round of lstats, not 256).
    await Promise.all(
      record.folders.map(async (folder) => {
        if (walk.budget <= 0) return;
        const folderStats = await lstatOrNone(folder);
        if (folderStats !== undefined) await this.#visit(folder, folderStats, walk, depth + 1);
      }),
    );
  }

  /** Reads a folder that is new or changed: its files' identities, its links and its folders. */
  async #read(path: string, stamp: string, walk: Walk): Promise<FolderRecord> {
    const record: FolderRecord = { stamp, files: [], links: [], folders: [] };
    let names: string[];
    try {
      names = await readdir(path);
    } catch {
      return record;
    }
    const children = names.slice(0, Math.max(0, walk.budget)).map((name) => join(path, name));
    const stats = await Promise.all(children.map(lstatOrNone));
    children.forEach((child, i) => {
      const entry = stats[i];
      if (entry === undefined) return;
      if (entry.isDirectory()) record.folders.push(child);
      else if (entry.isSymbolicLink()) record.links.push(child);
      else record.files.push([identityKey(entry.dev, entry.ino), child]);
    });
    return record;
  }
}

/** A symlink counts by its target, when that is not a folder (a folder elsewhere may be anything). */
async function addTarget(link: string, walk: Walk): Promise<void> {
  try {
    const target = await stat(link, { bigint: true });
    if (!target.isDirectory()) walk.ids.set(identityKey(target.dev, target.ino), link);
  } catch {
    // Dangling.
  }
}
