// What the tools of one turn are given (CallContext): the turn's mode, signal and emit, the
// session's executor (whose commands wait for the turn's undo snapshot), engine and approver,
// the sandbox of the mode, and the undo snapshot taken before each write.
import type { EventSink } from "../core-types/events.ts";
import type { Mode } from "../core-types/mode.ts";
import { messageOf } from "../errors/caught.ts";
import type { Executor, ProcessExecutor, SandboxSpec } from "../sandbox/types.ts";
import { commandsAfterSnapshot } from "./undoTurn.ts";
import type { CallContext } from "../tools/registry.ts";
import type { RuntimeOptions } from "./runtimeOptions.ts";

/** The executor's own sandbox, the project read-only in plan mode; none without an OS sandbox. */
function defaultSandbox(executor: Executor, mode: Mode): SandboxSpec | null {
  if (!executor.sandbox.available) return null;
  const spec = (executor as Partial<ProcessExecutor>).spec;
  return typeof spec === "function" ? spec.call(executor, { projectReadOnly: mode === "plan" }) : null;
}

export type CallServices = Pick<
  RuntimeOptions,
  "home" | "executor" | "sandboxFor" | "engine" | "approver" | "undo" | "hooks" | "audit"
>;

/** The tools' context for one turn (without subagents: subagentHost.ts adds them). */
export function turnCallContext(
  services: CallServices,
  turn: { root: string; mode: Mode; signal: AbortSignal; emit: EventSink },
): CallContext {
  const { emit, mode } = turn;
  // A failing undo store is said once a turn, not at every write.
  let snapshotWarned = false;
  return {
    root: turn.root,
    home: services.home,
    mode,
    signal: turn.signal,
    executor: commandsAfterSnapshot(services.executor, services.undo),
    sandbox: services.sandboxFor ? services.sandboxFor(mode) : defaultSandbox(services.executor, mode),
    engine: services.engine,
    ...(services.approver && { approver: services.approver }),
    emit,
    beforeWrite: async (paths) => {
      try {
        await services.undo?.snapshot(paths);
      } catch (error) {
        if (snapshotWarned) return;
        snapshotWarned = true;
        emit({
          type: "notice",
          level: "warning",
          text: `An undo snapshot failed (${messageOf(error)}); /undo may not restore this change.`,
        });
      }
    },
    ...(services.hooks && { hooks: services.hooks }),
    ...(services.audit && { audit: services.audit }),
  };
}
