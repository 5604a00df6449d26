import { homedir } from "node:os";
import { join } from "node:path";

/**
 * Every file and folder Garuda keeps under ~/.garuda (docs/architecture.md "Files on disk" says
 * what writes each). HOME decides where that is, so tests use a temp HOME. Other code takes these
 * paths from here rather than joining ".garuda" itself.
 */
export interface GarudaPaths {
  home: string;
  dir: string;
  models: string;
  credentials: string;
  policy: string;
  trust: string;
  mcp: string;
  hooks: string;
  commands: string;
  skills: string;
  agents: string;
  sessions: string;
  audit: string;
  snapshots: string;
  /** The chat's prompt history, one file per project. */
  history: string;
  /** The MCP tool lists approved across sessions (config/approvedTools.ts). */
  mcpApproved: string;
  /** The git guard's records (sandbox/gitGuard/record.ts); the executor is given it. */
  gitGuard: string;
}

/** The home folder from an explicit environment, falling back to the OS account's. */
export function homeFrom(env: Record<string, string | undefined>): string {
  const home = env.HOME ?? env.USERPROFILE;
  return home && home.length > 0 ? home : homedir();
}

export function garudaPaths(home: string): GarudaPaths {
  const dir = join(home, ".garuda");
  return {
    home,
    dir,
    models: join(dir, "models.json"),
    credentials: join(dir, "credentials"),
    policy: join(dir, "policy.json"),
    trust: join(dir, "trust.json"),
    mcp: join(dir, "mcp.json"),
    hooks: join(dir, "hooks.json"),
    commands: join(dir, "commands"),
    skills: join(dir, "skills"),
    agents: join(dir, "agents"),
    sessions: join(dir, "sessions"),
    audit: join(dir, "audit"),
    snapshots: join(dir, "snapshots"),
    history: join(dir, "history"),
    mcpApproved: join(dir, "mcp-approved.json"),
    gitGuard: join(dir, "git-guard"),
  };
}
