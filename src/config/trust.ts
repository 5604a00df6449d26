// ~/.garuda/trust.json: the project things the user said yes to, pinned by the project's real
// path and the SHA-256 of what they approved. A change to the approved content needs a new yes.
// The file is read on every question (another Garuda process may have pinned something since),
// and a file that cannot be read or understood trusts nothing.
import { createHash } from "node:crypto";
import { realpathSync } from "node:fs";
import { resolve } from "node:path";
import { z } from "zod";
import { writeFileAtomic } from "../files/atomicWrite.ts";
import { readRegularFile } from "../files/regularFile.ts";
import { ConfigError } from "../errors/configError.ts";

/** What can be pinned per project root today. */
export type TrustKind = "settings" | "hooks";

/**
 * What can be pinned per project root and name (custom commands, skills, agents, MCP servers):
 * `{kind: {root: {name: hash}}}`. These sections are read leniently: an entry of another shape
 * (a later or earlier Garuda's) is simply not a pin, and is kept when other pins are written.
 */
export type NamedTrustKind = "commands" | "skills" | "agents" | "mcp";
const NAMED_TRUST_KINDS: readonly NamedTrustKind[] = ["commands", "skills", "agents", "mcp"];

/** Sections a later Garuda fills (the network list) and the named pins: kept as they are. */
const LATER_SECTIONS = [...NAMED_TRUST_KINDS, "network"] as const;

const TRUST_VERSION = 1;
const MAX_TRUST_BYTES = 4 * 1024 * 1024;
const SHA256_HEX = /^[0-9a-f]{64}$/;
/** A host the network section may remember: a name or an address, never a pattern. */
const PLAIN_HOST = /^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9.:-]*[A-Za-z0-9])?$/;

const pinsSchema = z.record(z.string().min(1), z.string().regex(SHA256_HEX, "must be a SHA-256 in hex"));

const trustFileSchema = z.looseObject({
  version: z.literal(TRUST_VERSION),
  settings: pinsSchema.optional(),
  hooks: pinsSchema.optional(),
  ...Object.fromEntries(LATER_SECTIONS.map((name) => [name, z.record(z.string(), z.unknown()).optional()])),
});

export type TrustData = { version: number; settings?: Record<string, string>; hooks?: Record<string, string> } & Record<
  string,
  unknown
>;

/** The result of reading trust.json. `problem` set: the file exists but trusts nothing. */
export interface TrustRead {
  data: TrustData;
  problem?: string;
}

/** SHA-256 of text or bytes, lower-case hex: the form every pin uses. */
export function sha256Hex(content: string | Uint8Array): string {
  return createHash("sha256").update(content).digest("hex");
}

/** The key a root is pinned under: its real path (a symlinked checkout is the same project). */
export function trustRoot(root: string): string {
  const absolute = resolve(root);
  try {
    return realpathSync(absolute);
  } catch {
    return absolute;
  }
}

const empty = (): TrustData => ({ version: TRUST_VERSION });

/**
 * The file's bytes, undefined when there is none, or why it is not the user's own regular file that only the user may
 * change.
 */
function readOwnFile(path: string): Buffer | undefined | { problem: string } {
  const read = readRegularFile(path, { maxBytes: MAX_TRUST_BYTES, noFollow: true, own: { deniedMode: 0o022 } });
  if ("bytes" in read) return read.bytes;
  switch (read.problem) {
    case "missing":
      return undefined;
    case "link":
      return { problem: "is a symbolic link" };
    case "folder":
    case "not_regular":
      return { problem: "is not a regular file" };
    case "not_own":
      return { problem: "belongs to another user" };
    case "open_mode":
      return { problem: `can be changed by other users (mode ${(read.mode & 0o777).toString(8)})` };
    case "too_big":
      return { problem: `is larger than ${MAX_TRUST_BYTES} bytes` };
    case "unreadable":
      return { problem: `cannot be read (${read.code})` };
  }
}

/** Reads trust.json. Never throws: absent is an empty store, anything wrong is a `problem`. */
export function readTrustFile(path: string): TrustRead {
  const bytes = readOwnFile(path);
  if (bytes === undefined) return { data: empty() };
  if ("problem" in bytes) return { data: empty(), problem: bytes.problem };
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString("utf8"));
  } catch {
    return { data: empty(), problem: "is not valid JSON" };
  }
  const version = typeof parsed === "object" && parsed !== null ? (parsed as { version?: unknown }).version : undefined;
  if (typeof version === "number" && version !== TRUST_VERSION) {
    return { data: empty(), problem: `has version ${version}, and this Garuda reads version ${TRUST_VERSION}` };
  }
  const result = trustFileSchema.safeParse(parsed);
  if (!result.success) {
    const issue = result.error.issues[0];
    const where = issue && issue.path.length > 0 ? ` at ${issue.path.map(String).join(".")}` : "";
    return { data: empty(), problem: `is not a trust file Garuda understands${where}` };
  }
  return { data: result.data as TrustData };
}

/** How a notice about an unapproved project file ends (the terminal chat asks; prepareRuntime drops it after a no). */
export const APPROVE_IN_CHAT = "once in this folder and answer yes.";

/** The notice for a trust file that trusts nothing. */
function trustProblemNotice(path: string, problem: string): string {
  return (
    `${path} ${problem}, so nothing in it is trusted: project settings that loosen ` +
    `safety and project hooks stay off, and a yes to a project's commands, skills, ` +
    `agents or MCP servers lasts only this session. Remove the file (Garuda writes ` +
    `a new one at the next approval) or fix it.`
  );
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** A named-pin section as `root → name → value`, leaving out entries of any other shape. */
function namedSection(data: TrustData, kind: NamedTrustKind): Record<string, Record<string, unknown>> {
  const section = data[kind];
  if (!isRecord(section)) return {};
  const roots: Record<string, Record<string, unknown>> = {};
  for (const [root, names] of Object.entries(section)) if (isRecord(names)) roots[root] = names;
  return roots;
}

/**
 * The trust store over one file. It holds no state beyond the path: every call reads the file,
 * so pins made by another Garuda process count at once.
 */
export class TrustStore {
  constructor(readonly path: string) {}

  /** What is wrong with the file, as notices (none when it is fine or absent). */
  notices(): string[] {
    const { problem } = readTrustFile(this.path);
    return problem ? [trustProblemNotice(this.path, problem)] : [];
  }

  /** The hash pinned for this kind and root, if any (undefined too when the file is broken). */
  pinned(kind: TrustKind, root: string): string | undefined {
    const { data, problem } = readTrustFile(this.path);
    if (problem) return undefined;
    return data[kind]?.[trustRoot(root)];
  }

  isTrusted(kind: TrustKind, root: string, hash: string): boolean {
    return SHA256_HEX.test(hash) && this.pinned(kind, root) === hash;
  }

  /** Pins `hash` for this kind and root, keeping every other pin and section. */
  pin(kind: TrustKind, root: string, hash: string): void {
    if (!SHA256_HEX.test(hash)) throw new Error(`not a SHA-256 in hex: ${hash}`);
    this.#update((data) => ({ ...data, [kind]: { ...(data[kind] ?? {}), [trustRoot(root)]: hash } }));
  }

  /** The hash pinned for this kind, root and name, if any (undefined too when the file is broken). */
  pinnedName(kind: NamedTrustKind, root: string, name: string): string | undefined {
    const { data, problem } = readTrustFile(this.path);
    if (problem) return undefined;
    const value = namedSection(data, kind)[trustRoot(root)]?.[name];
    return typeof value === "string" && SHA256_HEX.test(value) ? value : undefined;
  }

  isTrustedName(kind: NamedTrustKind, root: string, name: string, hash: string): boolean {
    return SHA256_HEX.test(hash) && this.pinnedName(kind, root, name) === hash;
  }

  /** Pins `hash` for this kind, root and name, keeping every other pin, name and section. */
  pinName(kind: NamedTrustKind, root: string, name: string, hash: string): void {
    if (!SHA256_HEX.test(hash)) throw new Error(`not a SHA-256 in hex: ${hash}`);
    const key = trustRoot(root);
    this.#update((data) => {
      const raw = data[kind];
      const section = isRecord(raw) ? raw : {};
      const names = isRecord(section[key]) ? section[key] : {};
      return { ...data, [kind]: { ...section, [key]: { ...names, [name]: hash } } };
    });
  }

  /**
   * The hosts remembered for this root ("remember for this project" at a network question):
   * `network: {root: [host, …]}`. Only plain host names and addresses count (no pattern).
   */
  rememberedHosts(root: string): string[] {
    const { data, problem } = readTrustFile(this.path);
    if (problem || !isRecord(data.network)) return [];
    const hosts = data.network[trustRoot(root)];
    return Array.isArray(hosts)
      ? hosts.filter((host): host is string => typeof host === "string" && PLAIN_HOST.test(host))
      : [];
  }

  /** Remembers `host` for this root, keeping every other host, root and section. */
  rememberHost(root: string, host: string): void {
    if (!PLAIN_HOST.test(host)) throw new Error(`not a plain host name: ${host}`);
    const key = trustRoot(root);
    this.#update((data) => {
      const section = isRecord(data.network) ? data.network : {};
      const known = Array.isArray(section[key]) ? (section[key] as unknown[]) : [];
      return { ...data, network: { ...section, [key]: known.includes(host) ? known : [...known, host] } };
    });
  }

  /** Removes the pin for this kind and root (nothing happens when there is none). */
  revoke(kind: TrustKind, root: string): void {
    const key = trustRoot(root);
    if (readTrustFile(this.path).data[kind]?.[key] === undefined) return;
    this.#update((data) => {
      const { [key]: _removed, ...rest } = data[kind] ?? {};
      return { ...data, [kind]: rest };
    });
  }

  #update(change: (data: TrustData) => TrustData): void {
    const { data, problem } = readTrustFile(this.path);
    // Overwriting a broken file would destroy what may be the only record of past answers, or
    // of tampering: the user fixes or removes it first.
    if (problem)
      throw new ConfigError(
        this.path,
        `${problem}; nothing can be pinned in it`,
        "Remove the file (Garuda writes a new one) or fix it",
      );
    writeFileAtomic(this.path, `${JSON.stringify(change(data), null, 2)}\n`, { mode: 0o600, dirMode: 0o700 });
  }
}
