// `!cmd` in a front end: a shell command the user runs themselves, through the session's bash
// tool, so it meets the same permission engine (rules, mode, hooks, the approver's question),
// the same OS sandbox and the same audit log as the model's commands, and is shown as one. It is
// not part of the conversation: the model neither sees the command nor its output (the user
// shows it what they want to in a prompt), and no model request is made.
import { randomUUID } from "node:crypto";
import type { EventSink } from "../core-types/events.ts";
import type { Mode } from "../core-types/mode.ts";
import type { CallOutcome, ToolRegistry } from "../tools/registry.ts";
import { type CallServices, turnCallContext } from "./callContext.ts";

export interface UserCommandContext {
  services: CallServices;
  registry: ToolRegistry;
  root: string;
  mode: Mode;
}

/** The tool that runs a user's command: the model's own command tool. */
export const USER_COMMAND_TOOL = "bash";

/** Runs `command` as a bash call of the user's; resolves with its outcome (denied, failed, completed). */
export function runUserCommand(
  ctx: UserCommandContext,
  command: string,
  signal: AbortSignal,
  emit: EventSink,
): Promise<CallOutcome> {
  // The user's own command is no turn: it opens no undo point (what it changes is the user's, as an edit between
  // turns).
  const calls = turnCallContext({ ...ctx.services, undo: undefined }, { root: ctx.root, mode: ctx.mode, signal, emit });
  return ctx.registry.run({ id: `user-command-${randomUUID()}`, name: USER_COMMAND_TOOL, input: { command } }, calls);
}
