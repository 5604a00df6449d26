// <root>/.garuda/settings.json: what a project asks of Garuda. The project is not trusted, so
// its settings come in two parts. Tightening parts (deny and ask rules, denyRead, limits, the
// strict profile, executor "os") always apply. Loosening parts (allow rules, writePaths, the
// network list, extra environment variables, executor "host") apply only when the user approved
// exactly them: their hash is pinned for this root in ~/.garuda/trust.json.
import { isAbsolute, join, resolve } from "node:path";
import { z } from "zod";
import { ruleProblem } from "../permission/ruleSyntax.ts";
import { commandLimitKeys } from "./policySchema.ts";
import type { Rule } from "../permission/types.ts";
import { oneLine } from "../text/visible.ts";
import { ConfigError } from "../errors/configError.ts";
import { describeIssues, parseConfigJson, readConfigText } from "./jsonFile.ts";
import { NETWORK_PRESETS } from "./networkPresets.ts";
import type { GarudaPaths } from "./paths.ts";
import { APPROVE_IN_CHAT, sha256Hex, TrustStore, trustRoot } from "./trust.ts";

const HOST = /^(\*\.)?([a-z0-9]([a-z0-9-]*[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]*[a-z0-9])?(:\d{1,5})?$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const rule = z.string().superRefine((text, context) => {
  const problem = ruleProblem(text);
  if (problem) context.addIssue({ code: "custom", message: `${problem}` });
});
const ruleList = z.array(rule);
const pathList = z.array(z.string().min(1, "must not be empty"));
const networkEntry = z
  .string()
  .transform((value) => value.toLowerCase())
  .refine((value) => value in NETWORK_PRESETS || HOST.test(value), {
    message: `must be a host (example.com, *.example.com) or a preset (${Object.keys(NETWORK_PRESETS).join(", ")})`,
  });

const projectSettingsSchema = z.strictObject({
  permissions: z
    .strictObject({ allow: ruleList.optional(), ask: ruleList.optional(), deny: ruleList.optional() })
    .optional(),
  sandbox: z.strictObject({ writePaths: pathList.optional(), denyRead: pathList.optional() }).optional(),
  network: z.strictObject({ allow: z.array(networkEntry).optional() }).optional(),
  env: z
    .strictObject({ allow: z.array(z.string().regex(ENV_NAME, "must be an environment variable name")).optional() })
    .optional(),
  limits: z
    .strictObject({
      maxSteps: z.number().int().positive().optional(),
      tokenBudget: z.number().int().positive().optional(),
      ...commandLimitKeys,
    })
    .optional(),
  profile: z.literal("strict").optional(),
  executor: z.enum(["auto", "os", "host"]).optional(),
});
type ProjectSettingsFile = z.infer<typeof projectSettingsSchema>;

export type ExecutorChoice = "auto" | "os" | "host";

/** The settings in force for a session. Paths are absolute. */
export interface ProjectSettings {
  /** Deny and ask rules always; allow rules only when approved. Source "project". */
  rules: Rule[];
  sandbox: { writePaths: string[]; denyRead: string[] };
  network: { allow: string[] };
  env: { allow: string[] };
  /**
   * Can only lower: the session's (maxSteps, tokenBudget) and each sandboxed command's (processes, memoryMB,
   * cpuSeconds).
   */
  limits: { maxSteps?: number; tokenBudget?: number; processes?: number; memoryMB?: number; cpuSeconds?: number };
  profile?: "strict";
  executor: ExecutorChoice;
}

/** The parts of a settings file that loosen safety, as written (the hash covers exactly these). */
export interface LooseningSettings {
  allow: string[];
  /** As written; `resolvedWritePaths` holds the absolute paths. */
  writePaths: string[];
  resolvedWritePaths: string[];
  networkAllow: string[];
  envAllow: string[];
  executorHost: boolean;
}

export interface LoadedProjectSettings {
  file: string;
  /** The effective settings: what applies now. */
  settings: ProjectSettings;
  /** What needs the user's yes; undefined when the file loosens nothing. */
  loosening: LooseningSettings | undefined;
  /** SHA-256 of the loosening part, the value to pin; undefined when nothing needs a yes. */
  hash: string | undefined;
  /** True when the loosening part applies (approved, or there is none). */
  trusted: boolean;
  notices: string[];
}

export interface LoadProjectSettingsOptions {
  root: string;
  paths: GarudaPaths;
  /** Defaults to the store at paths.trust. */
  trust?: TrustStore;
}

const projectSettingsFile = (root: string): string => join(root, ".garuda", "settings.json");

/** Reads and validates the file; undefined when it does not exist. A ConfigError names the file. */
function readProjectSettingsFile(file: string): ProjectSettingsFile | undefined {
  const fix =
    "Fix the file; the keys are permissions {allow, ask, deny}, sandbox " +
    "{writePaths, denyRead}, network {allow}, env {allow}, limits {maxSteps, " +
    "tokenBudget, processes, memoryMB, cpuSeconds}, profile, executor";
  const text = readConfigText(file);
  if (text === undefined) return undefined;
  const result = projectSettingsSchema.safeParse(parseConfigJson(file, text));
  if (!result.success) throw new ConfigError(file, describeIssues(result.error, { nameUnknownKeys: true }), fix);
  if (result.data.profile === "strict" && result.data.executor === "host") {
    throw new ConfigError(
      file,
      'the strict profile runs every command in the OS sandbox, so executor "host" cannot go with it',
      "Remove one of the two",
    );
  }
  return result.data;
}

function resolvePath(path: string, root: string, home: string): string {
  if (path === "~") return home;
  if (path.startsWith("~/")) return join(home, path.slice(2));
  return isAbsolute(path) ? resolve(path) : resolve(root, path);
}

/** The loosening part of a parsed file, or undefined when it loosens nothing. */
function looseningOf(parsed: ProjectSettingsFile, root: string, home: string): LooseningSettings | undefined {
  const loosening: LooseningSettings = {
    allow: parsed.permissions?.allow ?? [],
    writePaths: parsed.sandbox?.writePaths ?? [],
    resolvedWritePaths: (parsed.sandbox?.writePaths ?? []).map((path) => resolvePath(path, root, home)),
    networkAllow: parsed.network?.allow ?? [],
    envAllow: parsed.env?.allow ?? [],
    executorHost: parsed.executor === "host",
  };
  const any =
    loosening.allow.length + loosening.writePaths.length + loosening.networkAllow.length + loosening.envAllow.length >
    0;
  return any || loosening.executorHost ? loosening : undefined;
}

/** The value pinned in trust.json: SHA-256 over the loosening part as written, in a fixed order. */
function looseningHash(loosening: LooseningSettings): string {
  return sha256Hex(
    JSON.stringify({
      allow: loosening.allow,
      writePaths: loosening.writePaths,
      networkAllow: loosening.networkAllow,
      envAllow: loosening.envAllow,
      executorHost: loosening.executorHost,
    }),
  );
}

const list = (items: string[]) => items.map((item) => oneLine(item, 120)).join(", ");

/** One short line per loosening item, shared by the notice and the question. */
function looseningItems(loosening: LooseningSettings): string[] {
  const items: string[] = [];
  if (loosening.allow.length > 0) items.push(`permissions.allow (run without asking): ${list(loosening.allow)}`);
  if (loosening.writePaths.length > 0)
    items.push(`sandbox.writePaths (writable by commands): ${list(loosening.resolvedWritePaths)}`);
  if (loosening.networkAllow.length > 0)
    items.push(`network.allow (hosts commands may reach): ${list(loosening.networkAllow)}`);
  if (loosening.envAllow.length > 0)
    items.push(`env.allow (variables passed to commands): ${list(loosening.envAllow)}`);
  if (loosening.executorHost) items.push('executor "host" (commands run outside the OS sandbox)');
  return items;
}

/** The text for the terminal question: what saying yes would loosen, item by item. */
export function describeLoosening(loosening: LooseningSettings, file: string): string {
  const lines = [`${oneLine(file, 300)} asks for more than Garuda's safe defaults:`];
  for (const item of looseningItems(loosening)) lines.push(`  • ${item}`);
  if (loosening.networkAllow.some((entry) => entry in NETWORK_PRESETS)) {
    const presets = loosening.networkAllow.filter((entry) => entry in NETWORK_PRESETS);
    lines.push(
      `  (presets: ${presets.map((name) => `${name} = ${(NETWORK_PRESETS[name] ?? []).join(" ")}`).join("; ")})`,
    );
  }
  return lines.join("\n");
}

function ignoredNotice(file: string, loosening: LooseningSettings, changed: boolean): string {
  const why = changed
    ? "changed since you approved it, so these parts are ignored until you approve them again"
    : "loosens safety, so these parts are ignored until you approve them";
  return (
    `${oneLine(file, 300)} ${why}: ${looseningItems(loosening).join("; ")}. To ` +
    `approve, run \`garuda\` ${APPROVE_IN_CHAT}`
  );
}

function effective(
  parsed: ProjectSettingsFile,
  file: string,
  root: string,
  home: string,
  trusted: boolean,
): ProjectSettings {
  const rules = (effect: Rule["effect"], patterns: string[] | undefined): Rule[] =>
    (patterns ?? []).map((pattern) => ({ effect, pattern, source: "project", file }));
  const denyRead = (parsed.sandbox?.denyRead ?? []).map((path) => resolvePath(path, root, home));
  // What commands in the sandbox cannot read, the file tools do not read either: a folder and
  // everything in it, a glob as written.
  const unreadable = denyRead.flatMap((path) =>
    path.includes("*") ? [`read(${path})`] : [`read(${path})`, `read(${path.replace(/\/+$/, "")}/**)`],
  );
  return {
    rules: [
      ...rules("deny", parsed.permissions?.deny),
      ...rules("deny", unreadable),
      ...rules("ask", parsed.permissions?.ask),
      ...(trusted ? rules("allow", parsed.permissions?.allow) : []),
    ],
    sandbox: {
      writePaths: trusted ? (parsed.sandbox?.writePaths ?? []).map((path) => resolvePath(path, root, home)) : [],
      denyRead,
    },
    network: { allow: trusted ? [...(parsed.network?.allow ?? [])] : [] },
    env: { allow: trusted ? [...(parsed.env?.allow ?? [])] : [] },
    limits: { ...parsed.limits },
    ...(parsed.profile ? { profile: parsed.profile } : {}),
    executor: parsed.executor === "host" && !trusted ? "auto" : (parsed.executor ?? "auto"),
  };
}

/**
 * Loads the project's settings. Missing file = defaults. An invalid file throws a ConfigError
 * naming the file and the key. Unapproved loosening parts are left out, with a notice.
 */
export function loadProjectSettings(options: LoadProjectSettingsOptions): LoadedProjectSettings {
  const root = trustRoot(options.root);
  const file = projectSettingsFile(root);
  const parsed = readProjectSettingsFile(file) ?? {};
  const loosening = looseningOf(parsed, root, options.paths.home);
  if (!loosening) {
    return {
      file,
      settings: effective(parsed, file, root, options.paths.home, true),
      loosening,
      hash: undefined,
      trusted: true,
      notices: [],
    };
  }
  const trust = options.trust ?? new TrustStore(options.paths.trust);
  const hash = looseningHash(loosening);
  const trusted = trust.isTrusted("settings", root, hash);
  const notices: string[] = [];
  if (!trusted) {
    notices.push(...trust.notices());
    notices.push(ignoredNotice(file, loosening, trust.pinned("settings", root) !== undefined));
  }
  return {
    file,
    settings: effective(parsed, file, root, options.paths.home, trusted),
    loosening,
    hash,
    trusted,
    notices,
  };
}

/** Records the user's yes to the loosening part as loaded (a later change needs a new yes). */
export function approveProjectSettings(loaded: LoadedProjectSettings, trust: TrustStore, root: string): void {
  if (loaded.hash) trust.pin("settings", root, loaded.hash);
}
