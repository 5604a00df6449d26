// What the git guard keeps on disk per project, in ~/.garuda/git-guard/<project>-<hash8>/ (read-
// only to sandboxed commands):
// - known.json: the repositories in the project that are the user's (found before any sandboxed
//   command ran, made while none ran, or judged harmless), so a sweep leaves them alone;
// - owner-<pid>-<id>.json: one per Garuda process whose sandboxed commands may write the project,
//   from its first such command until it shuts down, saying whether one runs now. One left
//   behind by a process that is gone (SIGKILL, a crash) while a command ran means that command
//   may have planted something the guard did not get to see: the next guard for this project
//   sweeps it. (Written in place, without fsync: it changes twice at every command. A rename over
//   it cost ~1.7 ms each on ext4, whose auto_da_alloc flushes a file renamed over another; a
//   half-written or empty file reads as "a command runs", which only makes the next guard sweep.)
import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { writeFileAtomic } from "../../files/atomicWrite.ts";
import type { MarkerKind } from "./repos.ts";
import { readProcStat } from "../procStat.ts";

export interface KnownRepo {
  /** Relative to the root ("" for the root itself). */
  dir: string;
  kind: MarkerKind;
  ino: number;
  /** Redirect files (commondir, config.worktree) its git folder had when it became known. */
  redirects: string[];
}

export interface Owner {
  file: string;
  pid: number;
  start: string;
  /** A sandboxed command ran when it last wrote (unreadable counts as yes). */
  active: boolean;
}

export interface GuardRecord {
  readonly dir: string;
  /** The known repositories, undefined when none were ever recorded (a first run). */
  known(): KnownRepo[] | undefined;
  /** Submodule configs as they were last known good (path relative to the root → text). */
  configs(): Record<string, string>;
  saveKnown(repos: KnownRepo[], configs: Record<string, string>): void;
  /** Other owners' files: `live` ones belong to running processes, `dead` ones to gone ones. */
  owners(): { live: Owner[]; dead: Owner[] };
  /** Marks this process as one whose sandboxed commands may write the project, and whether one runs now. */
  claim(active: boolean): void;
  release(): void;
  forget(owners: Owner[]): void;
}

/** A process's start time (field 22 of /proc/<pid>/stat), so a reused pid is not taken for it. */
function startTime(pid: number): string | undefined {
  if (process.platform === "linux") return readProcStat(pid)?.start;
  try {
    process.kill(pid, 0);
    return "";
  } catch {
    return undefined;
  }
}

function isKnownRepo(value: unknown): value is KnownRepo {
  const v = value as KnownRepo;
  return (
    typeof v?.dir === "string" && typeof v.kind === "string" && typeof v.ino === "number" && Array.isArray(v.redirects)
  );
}

export function openGuardRecord(stateDir: string, root: string): GuardRecord {
  const dir = join(
    stateDir,
    `${basename(root) || "root"}-${createHash("sha256").update(root).digest("hex").slice(0, 8)}`,
  );
  const knownFile = join(dir, "known.json");
  const self = { pid: process.pid, start: startTime(process.pid) ?? "", id: randomBytes(4).toString("hex") };
  const ownFile = join(dir, `owner-${self.pid}-${self.id}.json`);
  let claimed = false;
  const read = (): { repos?: unknown[]; configs?: Record<string, unknown> } | undefined => {
    try {
      const data = JSON.parse(readFileSync(knownFile, "utf8")) as {
        root?: string;
        repos?: unknown[];
        configs?: Record<string, unknown>;
      };
      return data.root === root ? data : undefined;
    } catch {
      return undefined;
    }
  };
  return {
    dir,
    known() {
      const data = read();
      return data && Array.isArray(data.repos) ? data.repos.filter(isKnownRepo) : undefined;
    },
    configs() {
      const configs = read()?.configs;
      if (!configs || typeof configs !== "object") return {};
      return Object.fromEntries(
        Object.entries(configs).filter((entry): entry is [string, string] => typeof entry[1] === "string"),
      );
    },
    saveKnown(repos, configs) {
      writeFileAtomic(knownFile, `${JSON.stringify({ root, repos, configs }, null, 1)}\n`, {
        mode: 0o600,
        dirMode: 0o700,
      });
    },
    owners() {
      const live: Owner[] = [];
      const dead: Owner[] = [];
      let names: string[] = [];
      try {
        names = readdirSync(dir).filter((name) => /^owner-\d+-[0-9a-f]+\.json$/.test(name));
      } catch {
        return { live, dead };
      }
      for (const name of names) {
        const file = join(dir, name);
        if (file === ownFile) continue;
        let owner: Owner;
        try {
          const data = JSON.parse(readFileSync(file, "utf8")) as { pid?: number; start?: string; active?: boolean };
          owner = { file, pid: Number(data.pid), start: String(data.start ?? ""), active: data.active !== false };
        } catch {
          owner = { file, pid: Number(name.split("-")[1]), start: "?", active: true };
        }
        const now = startTime(owner.pid);
        (now !== undefined && (now === owner.start || now === "") ? live : dead).push(owner);
      }
      return { live, dead };
    },
    claim(active) {
      const text = `${JSON.stringify({ pid: self.pid, start: self.start, root, active })}\n`;
      try {
        if (!claimed) mkdirSync(dir, { recursive: true, mode: 0o700 });
        writeFileSync(ownFile, text, { mode: 0o600 });
        claimed = true;
      } catch {
        // ~/.garuda not writable: no sweep after a kill, the guard itself keeps working.
      }
    },
    release() {
      if (!claimed) return;
      rmSync(ownFile, { force: true });
      claimed = false;
    },
    forget(owners) {
      for (const owner of owners) rmSync(owner.file, { force: true });
    },
  };
}
