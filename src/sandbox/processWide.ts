// What Garuda's process holds once for all its sessions: the C library (native.ts, opened at the
// first call that needs it), the process guards (processGuards.ts, applied once), the client
// connections every session's egress proxy shares (proxyAdmission.ts) and the git guards
// (gitGuard/host.ts: sessions of one project share its guard and its watches). Made at start
// by the command that runs (acp, chat, run) and passed to every executor it makes, so nothing of it
// is module state: a test makes its own.
import { type Native, openNative } from "./native.ts";
import { type ProcessGuards, applyGuards } from "./processGuards.ts";
import { type ProxyConnectionBudget, proxyConnectionBudget } from "./proxyAdmission.ts";
import { type GitGuardHost, createGitGuardHost } from "./gitGuard/host.ts";

export interface ProcessWideOptions {
  /** Where the git guards keep their records (~/.garuda/git-guard). */
  gitGuardDir: string;
  /** To find git. */
  path: string | undefined;
}

export interface ProcessWide {
  /** The C library, opened at the first call; undefined off Linux or where none loads. */
  native(): Native | undefined;
  /** Applies the process guards at the first call; what took effect. */
  guard(): Promise<ProcessGuards>;
  /** The client connections all the session proxies of this process may hold together. */
  readonly proxyConnections: ProxyConnectionBudget;
  /** The git guards, one per project root, made at the first call (undefined without options). */
  gitGuards(): GitGuardHost | undefined;
}

export function createProcessWide(options?: ProcessWideOptions): ProcessWide {
  let native: { library: Native | undefined } | undefined;
  let guarded: Promise<ProcessGuards> | undefined;
  let gitGuards: GitGuardHost | undefined;
  const library = (): Native | undefined => {
    if (!native) {
      try {
        native = { library: openNative() };
      } catch {
        native = { library: undefined }; // bun:ffi itself would not load
      }
    }
    return native.library;
  };
  return {
    native: library,
    proxyConnections: proxyConnectionBudget(),
    gitGuards() {
      if (options && !gitGuards)
        gitGuards = createGitGuardHost({ stateDir: options.gitGuardDir, path: options.path, native: library });
      return gitGuards;
    },
    guard() {
      // A promise: session/new need not wait for bun:ffi to load (the caller does not await it).
      guarded ??= Promise.resolve().then(() => applyGuards(library()));
      return guarded;
    },
  };
}
