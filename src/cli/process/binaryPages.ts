// Gives back the process's mappings of its own binary's read-only pages (issue 19.2, Linux).
//
// The binary is 113 MB: the Bun runtime and Garuda's embedded modules. The kernel maps its page
// cache into the process by whole large folios (ext4 and others cache a file in folios of up to
// a few MiB, and a fault maps the folio around it), so start-up, which runs code all over the
// runtime once, leaves ~45 MiB of the binary mapped: counted in the agent's RSS and PSS although
// most of it never runs again. madvise(MADV_DONTNEED) on those mappings unmaps them. The pages
// stay in the page cache (shared, clean, the first the kernel reclaims) and nothing is lost: a
// read-only private mapping that holds no private (copy-on-write) page reads the same bytes from
// the file when it is touched again. What the agent runs next faults back in: a turn then costs
// its working set, not start-up's (bench/acpMemory.ts).
//
// Only mappings of /proc/self/exe, readable and not writable (r--p, r-xp), with no anonymous
// page: a read-only mapping with one (a page written and then write-protected, as JavaScriptCore
// freezes its configuration page) would lose what was written, so it is left alone.
import { readFileSync, readlinkSync, statSync } from "node:fs";
import type { Native } from "../../sandbox/native.ts";

const MADV_DONTNEED = 4;

export interface MappedRange {
  start: bigint;
  length: bigint;
  /** Resident bytes of the mapping when /proc/self/smaps was read. */
  rssBytes: number;
}

/**
 * The mappings of `smaps` (the text of /proc/<pid>/smaps) that are safe to drop: of the file with
 * inode `inode` at `path`, mapped private and read-only (r--p, r-xp), with no anonymous page.
 */
export function droppableMappings(smaps: string, path: string, inode: number): MappedRange[] {
  const found: MappedRange[] = [];
  let current: (MappedRange & { anonymousBytes: number }) | undefined;
  const close = () => {
    if (current && current.anonymousBytes === 0)
      found.push({ start: current.start, length: current.length, rssBytes: current.rssBytes });
    current = undefined;
  };
  for (const line of smaps.split("\n")) {
    const header = /^([0-9a-f]+)-([0-9a-f]+) (\S{4}) [0-9a-f]+ \S+ (\d+)\s*(.*)$/.exec(line);
    if (header) {
      close();
      const [, from, to, perms, fileInode, file] = header as unknown as [
        string,
        string,
        string,
        string,
        string,
        string,
      ];
      if ((perms === "r--p" || perms === "r-xp") && Number(fileInode) === inode && file === path) {
        const start = BigInt(`0x${from}`);
        current = { start, length: BigInt(`0x${to}`) - start, rssBytes: 0, anonymousBytes: 0 };
      }
      continue;
    }
    if (!current) continue;
    const field = /^(Rss|Anonymous):\s+(\d+) kB/.exec(line);
    if (field?.[1] === "Rss") current.rssBytes = Number(field[2]) * 1024;
    else if (field?.[1] === "Anonymous") current.anonymousBytes = Number(field[2]) * 1024;
  }
  close();
  return found;
}

/**
 * Unmaps the binary's read-only pages (see above) and says how many resident bytes were in them;
 * 0 off Linux or where the C library (the process's, processWide.ts) or /proc is not there.
 */
export async function releaseBinaryPages(native: Native | undefined): Promise<number> {
  if (process.platform !== "linux") return 0;
  let ranges: MappedRange[];
  try {
    const exe = readlinkSync("/proc/self/exe");
    ranges = droppableMappings(readFileSync("/proc/self/smaps", "utf8"), exe, statSync("/proc/self/exe").ino);
  } catch {
    return 0; // No /proc: nothing to go by.
  }
  if (!native) return 0;
  let released = 0;
  for (const range of ranges)
    if (native.madvise(range.start, range.length, MADV_DONTNEED) === 0) released += range.rssBytes;
  return released;
}
