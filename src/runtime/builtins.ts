// The built-in commands every front end offers — /undo, /diff, /compact, /permissions, /mode,
// /model — once: each runs against the Runtime and answers with data, never text for a screen.
// The terminal chat and the editor (ACP) format the answer their own way. None of them sends
// anything to the model. (/help, /clear and /exit are the chat's own: they act on its screen and
// its process.)
import { messageOf } from "../errors/caught.ts";
import type { ModelInfo } from "../model/catalog.ts";
import { MODES } from "../permission/modes.ts";
import type { Rule } from "../permission/types.ts";
import type { Mode } from "../core-types/mode.ts";
import type { EventSink } from "../core-types/events.ts";
import type { SharedBuiltin } from "./builtinNames.ts";
import type { CompactionResult } from "./compaction.ts";
import type { PreparedSwitch } from "./modelSwitch.ts";
import type { Runtime } from "./runtime.ts";
import type { UndoResult } from "./services.ts";

export type CompactAnswer =
  | { kind: "compacted"; result: CompactionResult }
  | { kind: "nothing" }
  /** The signal stopped it: the conversation is as it was. */
  | { kind: "stopped" }
  | { kind: "failed"; error: unknown };

export type PermissionsAnswer =
  | { kind: "list"; lasting: Rule[]; session: Rule[] }
  | { kind: "revoked"; rule: Rule }
  | { kind: "no-rule"; which: string }
  | { kind: "usage" };

export type ModeAnswer =
  | { kind: "show"; mode: Mode; modes: Mode[] }
  /** notices: what the switch stopped (plan mode ends the background processes that could write the project). */
  | { kind: "set"; mode: Mode; notices: string[] }
  | { kind: "unknown"; name: string }
  | { kind: "refused"; reason: string };

export type ModelAnswer =
  | { kind: "show"; model: ModelInfo; models: ModelInfo[]; effort?: string }
  | { kind: "switched"; model: ModelInfo; switched: PreparedSwitch }
  | { kind: "same"; model: ModelInfo }
  | { kind: "refused"; reason: string; model: ModelInfo };

export type BuiltinAnswer =
  | { command: "undo"; result: UndoResult }
  | { command: "diff"; text: string }
  | { command: "compact"; answer: CompactAnswer }
  | { command: "permissions"; answer: PermissionsAnswer }
  | { command: "mode"; answer: ModeAnswer }
  | { command: "model"; answer: ModelAnswer };

async function compact(
  runtime: Runtime,
  focus: string,
  signal: AbortSignal | undefined,
  emit: EventSink | undefined,
): Promise<CompactAnswer> {
  try {
    const result = await runtime.compact({
      ...(signal && { signal }),
      ...(focus !== "" && { focus }),
      ...(emit && { emit }),
    });
    return result ? { kind: "compacted", result } : { kind: "nothing" };
  } catch (error) {
    return signal?.aborted ? { kind: "stopped" } : { kind: "failed", error };
  }
}

function permissions(runtime: Runtime, args: string): PermissionsAnswer {
  const engine = runtime.permissions;
  const session = engine.sessionRules();
  const revoke = /^revoke\s+(.+)$/.exec(args);
  if (revoke) {
    const which = (revoke[1] as string).trim();
    const index = /^\d+$/.test(which) ? Number(which) - 1 : session.findIndex((rule) => rule.pattern === which);
    const rule = session[index];
    if (!rule || !engine.revokeSessionRule(rule.pattern)) return { kind: "no-rule", which };
    return { kind: "revoked", rule };
  }
  if (args !== "") return { kind: "usage" };
  // A session rule shows once, in the session's list.
  const lasting = engine
    .rules()
    .filter((rule) => rule.source !== "session" || !session.some((own) => own.pattern === rule.pattern));
  return { kind: "list", lasting, session };
}

async function mode(runtime: Runtime, args: string): Promise<ModeAnswer> {
  if (args === "") return { kind: "show", mode: runtime.mode, modes: runtime.modes };
  const wanted = MODES.find((known) => known === args);
  if (!wanted) return { kind: "unknown", name: args };
  const { refusal, notices } = await runtime.setMode(wanted);
  return refusal === undefined ? { kind: "set", mode: wanted, notices } : { kind: "refused", reason: refusal };
}

async function model(runtime: Runtime, args: string): Promise<ModelAnswer> {
  if (args === "") {
    const effort = runtime.controls.effort;
    return {
      kind: "show",
      model: runtime.model,
      models: runtime.controls.models(),
      ...(effort !== undefined && { effort }),
    };
  }
  try {
    const switched = await runtime.controls.setModel(args);
    return switched ? { kind: "switched", model: runtime.model, switched } : { kind: "same", model: runtime.model };
  } catch (error) {
    // A ControlError says what can be chosen; the opener's errors (no key, a broken models.json) say what to fix.
    return { kind: "refused", reason: messageOf(error), model: runtime.model };
  }
}

/**
 * Runs a shared built-in. `signal` stops a /compact (or a switch's compaction); `emit` is told as
 * a /compact begins and ends. Throws only for a failure of the undo store or /diff.
 */
export async function runSharedBuiltin(
  runtime: Runtime,
  name: SharedBuiltin,
  args: string,
  signal?: AbortSignal,
  emit?: EventSink,
): Promise<BuiltinAnswer> {
  switch (name) {
    case "undo": {
      // `/undo N`: N turns back (rewind.ts); `/undo`: the last turn.
      const n = /^\d+$/.test(args) ? Number(args) : 1;
      return { command: "undo", result: n > 1 ? await runtime.undoTurns(n) : await runtime.undo() };
    }
    case "diff":
      return { command: "diff", text: await runtime.diff() };
    case "compact":
      return { command: "compact", answer: await compact(runtime, args, signal, emit) };
    case "permissions":
      return { command: "permissions", answer: permissions(runtime, args) };
    case "mode":
      return { command: "mode", answer: await mode(runtime, args) };
    case "model":
      return { command: "model", answer: await model(runtime, args) };
  }
}
