// The ripgrep program embedded in the binary (scripts/ripgrepBuild.ts puts ripgrep's release
// build, gzipped, into the Linux builds: a static one on x64, a glibc one on arm64). It is never
// written to disk: each search hands its bytes to bubblewrap on stdin (`--ro-bind-data`), which
// makes a private read-only copy inside the search's own sandbox (runner.ts). A copy in a cache
// folder would be checked and then run by its path, and sandboxed commands can write the usual
// cache folders: between the check and the start a command could put another program in its
// place. Unzipped once per process, on first use.
import { gunzipSync } from "node:zlib";

/** The program's bytes, unzipped on first use (4.5 MB), or undefined where none is embedded. */
export interface RipgrepProgram {
  readonly name: string;
  bytes(): Promise<Uint8Array>;
}

/** Embedded files of a compiled binary are named `<name>-<hash>.<ext>`; only this one is ripgrep. */
const EMBEDDED_NAME = /^rg-linux-[a-z0-9]+(?:-[a-z0-9]+)*\.gz$/;

/** A gzipped program, unzipped once and kept. */
export function gzippedProgram(name: string, read: () => Promise<ArrayBuffer>): RipgrepProgram {
  let unzipped: Promise<Uint8Array> | undefined;
  return {
    name,
    bytes() {
      unzipped ??= read().then((gz) => gunzipSync(new Uint8Array(gz)));
      // A failed read is tried again next time rather than kept.
      unzipped.catch(() => {
        unzipped = undefined;
      });
      return unzipped;
    },
  };
}

/** The rg embedded in this binary, or undefined (run from source, or a target without one). */
export function embeddedRipgrep(files: readonly Blob[] = Bun.embeddedFiles): RipgrepProgram | undefined {
  for (const file of files) {
    const name = (file as Blob & { name?: string }).name ?? "";
    // Bun adds a content hash to the name: rg-linux-x64-1785k08a.gz.
    if (EMBEDDED_NAME.test(name.replace(/-[a-z0-9]{8}\.gz$/, ".gz")))
      return gzippedProgram(name, () => file.arrayBuffer());
  }
  return undefined;
}

/** A gzipped rg at `path` (tests and benches run from source, where nothing is embedded). */
export function ripgrepFromFile(path: string): RipgrepProgram {
  return gzippedProgram(path, () => Bun.file(path).arrayBuffer());
}

/**
 * Whether an executable needs the system's dynamic loader and libraries (an ELF with a PT_INTERP
 * program header, or anything this cannot read); a static one (the x64 rg) runs without /usr or /lib.
 */
export function needsLoader(bytes: Uint8Array): boolean {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const elf64le = bytes.length >= 64 && view.getUint32(0) === 0x7f454c46 && bytes[4] === 2 && bytes[5] === 1;
  if (!elf64le) return true;
  const phoff = Number(view.getBigUint64(32, true));
  const entrySize = view.getUint16(54, true);
  const count = view.getUint16(56, true);
  if (entrySize < 4 || phoff + entrySize * count > bytes.length) return true;
  for (let i = 0; i < count; i++) if (view.getUint32(phoff + i * entrySize, true) === 3) return true;
  return false;
}
