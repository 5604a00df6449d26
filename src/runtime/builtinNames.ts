// The names and descriptions of the built-in commands both front ends offer (runtime/builtins.ts
// runs them). Constants only, so the editor's front end can list them before the core loads.
import type { RuleSource } from "../permission/types.ts";
import type { BuiltinCommand } from "./commands.ts";

/** The built-ins both front ends run through here. */
export const SHARED_BUILTINS = [
  "undo",
  "diff",
  "compact",
  "permissions",
  "mode",
  "model",
] as const satisfies readonly BuiltinCommand[];
export type SharedBuiltin = (typeof SHARED_BUILTINS)[number];

export function isSharedBuiltin(name: BuiltinCommand): name is SharedBuiltin {
  return (SHARED_BUILTINS as readonly string[]).includes(name);
}

/** What each shared built-in is for (the chat's /help and the editor's / menu say it). */
export const BUILTIN_DESCRIPTIONS: Readonly<
  Record<SharedBuiltin, { usage: string; description: string; hint?: string }>
> = {
  undo: {
    usage: "/undo [N]",
    description: "put back the files the last turn (or the last N turns) changed",
    hint: "how many turns back",
  },
  diff: { usage: "/diff", description: "what this session changed in the project" },
  compact: {
    usage: "/compact [focus]",
    description: "summarize the conversation so far, to make room",
    hint: "what the summary should keep",
  },
  permissions: { usage: "/permissions", description: "the rules in force and this session's rules" },
  mode: { usage: "/mode [build|plan]", description: "show or switch the mode", hint: "build or plan" },
  model: {
    usage: "/model [name]",
    description: "show or switch the model; the conversation goes on",
    hint: "a model name",
  },
};

/** The rules no file lists, as /permissions says them. */
export const BUILT_IN_RULES =
  "Built in: sensitive files (.env, keys …) and .git/ are never written; " +
  "read-only tools run; commands in the OS sandbox run; plan mode changes " +
  "nothing; everything else asks.";

/** Where a rule comes from, as /permissions says it. */
export const SOURCE_NAMES: Readonly<Record<RuleSource, string>> = {
  "managed-policy": "managed policy",
  "user-policy": "your policy",
  project: "project settings",
  session: "this session",
  builtin: "built in",
};
