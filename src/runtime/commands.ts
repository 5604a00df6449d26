// Prompts that start with "/": Garuda's built-in chat commands, custom commands and skills
// (through the injected CommandProvider), or an unknown name. A prompt that only looks like a
// path ("/usr/bin/env is missing") stays a prompt.
import type { CommandProvider, DeferredCommand } from "./services.ts";

export const BUILTIN_COMMANDS = [
  "help",
  "undo",
  "rewind",
  "diff",
  "compact",
  "mode",
  "model",
  "permissions",
  "clear",
  "fork",
  "exit",
] as const;
export type BuiltinCommand = (typeof BUILTIN_COMMANDS)[number];

export type ResolvedCommand =
  | { kind: "builtin"; name: BuiltinCommand; args: string }
  /** Text for the model: the prompt as typed, or a custom command or skill expanded. */
  | { kind: "prompt"; text: string; command?: string }
  | { kind: "unknown"; name: string };

const COMMAND = /^\/([a-z0-9][a-z0-9_-]*(?::[a-z0-9][a-z0-9_-]*)*)(?:\s+([\s\S]*))?$/i;

/**
 * A command whose prompt is made in the turn (DeferredCommand) comes back as the text typed: the
 * front end passes it to runTurn, which expands it (deferredCommand) before the model sees it.
 */
export function resolveCommand(text: string, commands: CommandProvider | undefined): ResolvedCommand {
  const match = COMMAND.exec(text.trim());
  if (!match) return { kind: "prompt", text };
  const name = (match[1] as string).toLowerCase();
  const args = (match[2] ?? "").trim();
  if ((BUILTIN_COMMANDS as readonly string[]).includes(name))
    return { kind: "builtin", name: name as BuiltinCommand, args };
  const expanded = commands?.resolve(name, args);
  if (typeof expanded === "string") return { kind: "prompt", text: expanded, command: name };
  if (expanded !== undefined) return { kind: "prompt", text: text.trim(), command: name };
  return { kind: "unknown", name };
}

/** The deferred command a prompt names (`/name args`), if it names one. */
export function deferredCommand(
  text: string,
  commands: CommandProvider | undefined,
): { name: string; command: DeferredCommand } | undefined {
  const match = COMMAND.exec(text.trim());
  if (!match || !commands) return undefined;
  const name = (match[1] as string).toLowerCase();
  if ((BUILTIN_COMMANDS as readonly string[]).includes(name)) return undefined;
  const expanded = commands.resolve(name, (match[2] ?? "").trim());
  return expanded !== undefined && typeof expanded !== "string" ? { name, command: expanded } : undefined;
}
