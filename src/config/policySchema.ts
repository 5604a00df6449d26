// The team policy file's format (managed file and ~/.garuda/policy.json). Strict: an unknown key
// is an error, so a misspelt restriction cannot be silently ignored.
import { z } from "zod";
import { ruleProblem } from "../permission/ruleSyntax.ts";
import { NETWORK_PRESETS } from "./networkPresets.ts";

const HOST = /^(\*|(\*\.)?([a-z0-9]([a-z0-9-]*[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]*[a-z0-9])?)(:\d{1,5})?$/;

const text = z.string().trim().min(1, "must not be empty");
const rule = z.string().superRefine((value, ctx) => {
  const problem = ruleProblem(value);
  if (problem) ctx.addIssue({ code: "custom", message: `"${value}" ${problem}` });
});
const host = z
  .string()
  .transform((value) => value.trim().toLowerCase())
  .refine((value) => HOST.test(value), { message: "must be a host (example.com, *.example.com)" });
const hostOrPreset = z
  .string()
  .transform((value) => value.trim().toLowerCase())
  .refine((value) => value in NETWORK_PRESETS || HOST.test(value), {
    message: `must be a host (example.com, *.example.com) or a preset (${Object.keys(NETWORK_PRESETS).join(", ")})`,
  });
const positive = z.number().int().positive();
/**
 * What one sandboxed command may use (src/sandbox/limits.ts): processes and threads at once, MiB, CPU seconds per
 * process.
 */
export const commandLimitKeys = {
  processes: z.number().int().min(8, "must be at least 8 (a command needs a few processes to start)").optional(),
  memoryMB: z.number().int().min(64, "must be at least 64 (MiB)").optional(),
  cpuSeconds: z.number().int().positive().optional(),
};

export const policyFileSchema = z.strictObject({
  /** Commands no part of a command line may run, by prefix: "rm", "git push", "curl *". */
  disallowedCommands: z.array(text).optional(),
  /** Every command runs in the OS sandbox; without one, no command runs. */
  requireSandbox: z.boolean().optional(),
  /** false: a command that failed in the sandbox is never offered a run outside it. */
  allowOutsideSandbox: z.boolean().optional(),
  /** false: approvals offer no "Allow for this session". */
  allowSessionApprovals: z.boolean().optional(),
  /** Paths no tool may read or write (rule path syntax: relative = in every project, ~/…, /abs). */
  denyPaths: z.array(text).optional(),
  /** Model specs a session may use (`*` wildcards). */
  allowedModels: z.array(text).min(1, "must list at least one model").optional(),
  /** Modes a session may use; one mode forces it. */
  allowedModes: z
    .array(z.enum(["build", "plan"]))
    .min(1, "must list at least one mode")
    .optional(),
  network: z
    .strictObject({
      blockedHosts: z.array(host).optional(),
      strictAllowlist: z.boolean().optional(),
      allow: z.array(hostOrPreset).optional(),
    })
    .optional(),
  limits: z
    .strictObject({ maxSteps: positive.optional(), tokenBudget: positive.optional(), ...commandLimitKeys })
    .optional(),
  audit: z
    .strictObject({ enabled: z.boolean().optional(), level: z.enum(["all", "mutations", "denials"]).optional() })
    .optional(),
  profile: z.literal("strict").optional(),
  permissions: z
    .strictObject({ allow: z.array(rule).optional(), ask: z.array(rule).optional(), deny: z.array(rule).optional() })
    .optional(),
});

export type PolicyFile = z.infer<typeof policyFileSchema>;

export const POLICY_KEYS_HINT =
  "The keys are disallowedCommands, requireSandbox, allowOutsideSandbox, " +
  "allowSessionApprovals, denyPaths, allowedModels, allowedModes, network " +
  "{blockedHosts, strictAllowlist, allow}, limits {maxSteps, tokenBudget, " +
  "processes, memoryMB, cpuSeconds}, audit {enabled, level}, profile, permissions " +
  "{allow, ask, deny}";
