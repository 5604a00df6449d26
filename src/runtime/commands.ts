// Prompts that start with "/": Garuda's built-in chat commands, custom commands and skills
// (through the injected CommandProvider), or an unknown name. A prompt that only looks like a
// path ("/usr/bin/env is missing") stays a prompt.
import type { CommandProvider } from "./services.ts";

export const BUILTIN_COMMANDS = ["help", "undo", "diff", "compact", "mode", "model", "permissions", "clear", "exit"] as const;
export type BuiltinCommand = (typeof BUILTIN_COMMANDS)[number];

export type ResolvedCommand =
  | { kind: "builtin"; name: BuiltinCommand; args: string }
  /** Text for the model: the prompt as typed, or a custom command or skill expanded. */
  | { kind: "prompt"; text: string; command?: string }
  | { kind: "unknown"; name: string };

const COMMAND = /^\/([a-z0-9][a-z0-9_-]*(?::[a-z0-9][a-z0-9_-]*)*)(?:\s+([\s\S]*))?$/i;

export function resolveCommand(text: string, commands: CommandProvider | undefined): ResolvedCommand {
  const match = COMMAND.exec(text.trim());
  if (!match) return { kind: "prompt", text };
  const name = (match[1] as string).toLowerCase();
  const args = (match[2] ?? "").trim();
  if ((BUILTIN_COMMANDS as readonly string[]).includes(name)) return { kind: "builtin", name: name as BuiltinCommand, args };
  const expanded = commands?.resolve(name, args);
  if (expanded !== undefined) return { kind: "prompt", text: expanded, command: name };
  return { kind: "unknown", name };
}
