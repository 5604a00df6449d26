// The shapes of the git guard's view of a project tree (watch.ts): what it reports of events,
// why part of the tree is scanned, and what the guard may ask of it.
import type { Inotify, InotifyEvent } from "../inotify.ts";
import type { ChangeLog } from "./changeLog.ts";
import type { Slices } from "./slices.ts";
import type { Storm, StormMeter } from "./storm.ts";

export interface WatchChange {
  /** Project folders whose marker may have appeared, changed or gone. */
  candidates: Set<string>;
  /** Git folders (or parts of one) in which something changed. */
  touched: Set<string>;
  /** The kernel dropped events: everything must be looked at again. */
  overflow: boolean;
  /** Subtrees that stopped being watched because their events cost too much (scanned from now on). */
  stormed: Storm[];
}

/**
 * Why part of the tree is scanned instead of watched (on Linux): the guard's share of watches, the kernel's limit, no
 * inotify instance.
 */
export type ShortOf = "share" | "kernel" | "instance";

export interface TreeWatch {
  /** Walks and watches the tree (once; a second call waits for the first); the project folders with a marker. */
  start(): Promise<string[]>;
  /** Events of this watch's folders, turned into what the guard must look at. */
  handle(events: InotifyEvent[]): Promise<WatchChange>;
  /** Events were lost (the kernel's overflow, the guard's inbox full): not covered until the rescan has walked. */
  lost(): void;
  /** Counts events the guard had no room for towards a storm (their folders are then looked at by a rescan). */
  tally(events: InotifyEvent[]): void;
  owns(wd: number): boolean;
  /** Walks it all again (after an overflow); the project folders with a marker. */
  rescan(): Promise<string[]>;
  /** Walks the subtrees left unwatched; the project folders with a marker there. */
  scanUnwatched(): Promise<string[]>;
  /** Watches again the subtrees a storm had left unwatched; the project folders with a marker there. */
  calm(): Promise<string[]>;
  /** Subtrees left unwatched because of a storm, until calm(). */
  readonly stormed: Storm[];
  /** Watches with `inotify` from now on (one got at last, after none was left); rescan() then watches the tree. */
  attach(inotify: Inotify): void;
  /** Subtrees left unwatched (their top folders). */
  readonly unwatched: number;
  /** Folders below those, as the last walk counted them. */
  readonly unwatchedFolders: number;
  /** Why a folder was last left unwatched on Linux (undefined: none was, or not on Linux). */
  readonly shortOf: ShortOf | undefined;
  /** A walk stopped at maxFolders: folders past it are not looked at. */
  readonly truncated: boolean;
  readonly maxFolders: number;
  readonly watched: number;
  /** What changed in the tree, for the undo store (changeLog.ts). */
  readonly changes: ChangeLog;
  /** Events as they are read (before the guard's steps): their paths go to the change log at once. */
  record(events: InotifyEvent[]): void;
  /**
   * Folders holding a folder whose name is not UTF-8 (as walks and events found them): it is neither watched nor
   * scanned.
   */
  readonly unnamed: string[];
  /** Every folder of the tree is watched now: the change log can vouch for what it recorded. */
  readonly covered: boolean;
  close(): void;
}

export interface TreeWatchOptions {
  root: string;
  /** Git folders outside the root that commands may write (a linked worktree's). */
  extraGitDirs: string[];
  inotify: Inotify | undefined;
  /** How many more watches may be added now (shared by every tree of one inotify instance). */
  budget: () => number;
  /** Most folders one walk looks at (a project at ~ must not cost a walk of the whole home). */
  maxFolders: number;
  /** How a walk gives the event loop back (default: every 8 ms). */
  slices?: () => Slices;
  /** What bounds the work events cause (default: storm.ts's bound). */
  meter?: StormMeter;
  /** Where the paths of events go (default: a log of its own). */
  changes?: ChangeLog;
}
