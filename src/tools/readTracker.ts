// What the model has read in this session, so edit_file and write_file can insist on a read
// first and refuse to work from a stale copy. One tracker per session, created by whoever builds
// the session's tools; keyed by real path, so a symlink and its target count as one file.

export interface ReadRecord {
  /** Hash of the bytes that were read. */
  hash: string;
  mtimeMs: number;
  size: number;
}

export type Freshness = "fresh" | "unread" | "stale";

function contentHash(bytes: Uint8Array): string {
  return Bun.hash(bytes).toString(16);
}

export class ReadTracker {
  readonly #reads = new Map<string, ReadRecord>();

  /** Notes that the model has seen this version of the file (after a read, or after a tool wrote it). */
  record(realPath: string, bytes: Uint8Array, mtimeMs: number): void {
    this.#reads.set(realPath, { hash: contentHash(bytes), mtimeMs, size: bytes.length });
  }

  /**
   * Whether the model's copy is the current one. The content decides, not the time stamp: a file
   * touched but unchanged is still fresh, and a change within the same clock tick is still caught.
   */
  check(realPath: string, currentBytes: Uint8Array): Freshness {
    const seen = this.#reads.get(realPath);
    if (!seen) return "unread";
    if (seen.size !== currentBytes.length) return "stale";
    return seen.hash === contentHash(currentBytes) ? "fresh" : "stale";
  }

  get(realPath: string): ReadRecord | undefined {
    return this.#reads.get(realPath);
  }

  forget(realPath: string): void {
    this.#reads.delete(realPath);
  }

  /** Forget everything, e.g. after the conversation was compacted and the model lost what it read. */
  clear(): void {
    this.#reads.clear();
  }
}
