// The file tools through the real pipeline (registry, permission engine, one session), with hooks
// for the moments between a check and a run: an approval, a preToolUse hook, the undo snapshot.
import { createPermissionEngine } from "../../src/permission/engine.ts";
import { type Attachments, attachMentions } from "../../src/runtime/mentions.ts";
import type { Approver, ApprovalRequest, Rule } from "../../src/permission/types.ts";
import type { AgentEvent } from "../../src/core-types/events.ts";
import type { ToolHooks } from "../../src/tools/toolHooks.ts";
import { createFileTools } from "../../src/tools/fileTools.ts";
import { type CallContext, ToolRegistry } from "../../src/tools/registry.ts";
import { tempRoot, writeFiles } from "./toolFixtures.ts";

export const KEY = "sk-ant-test-key-0000";
export const userRule = (effect: Rule["effect"], pattern: string): Rule => ({ effect, pattern, source: "user-policy" });

/** A project and a home, both real temp folders; the home has a shell rc file and Garuda credentials. */
export function place() {
  const root = tempRoot();
  const home = tempRoot();
  writeFiles(home.path, { ".bashrc": "# user's rc\n", ".garuda/credentials": `{"ANTHROPIC_API_KEY": "${KEY}"}\n` });
  return {
    root: root.path,
    home: home.path,
    [Symbol.dispose]: () => {
      root[Symbol.dispose]();
      home[Symbol.dispose]();
    },
  };
}

export interface PipelineOptions {
  rules?: Rule[];
  approver?: Approver;
  /** The undo snapshot: runs after the check, right before the write. */
  beforeWrite?: (paths: string[]) => void;
  /** A preToolUse hook: runs after the tool's plan(), before the engine decides and the tool runs. */
  pre?: () => void;
  /** With the code-index tools (symbols, find_definition). */
  codeIndex?: boolean;
}

/** The real pipeline: registry, real permission engine, real file tools, one session. */
export function pipeline(where: { root: string; home: string }, options: PipelineOptions = {}) {
  const { tools } = createFileTools({ home: where.home, codeIndex: options.codeIndex ?? false });
  const registry = new ToolRegistry(tools);
  const events: AgentEvent[] = [];
  const hooks: ToolHooks | undefined = options.pre
    ? {
        pre: async () => {
          options.pre?.();
          return {};
        },
        post: async () => ({}),
      }
    : undefined;
  const ctx: CallContext = {
    root: where.root,
    home: where.home,
    mode: "build",
    signal: new AbortController().signal,
    executor: {} as CallContext["executor"],
    sandbox: null,
    engine: createPermissionEngine({
      root: where.root,
      home: where.home,
      sandboxAvailable: true,
      rules: options.rules ?? [],
    }),
    emit: (event) => events.push(event),
    beforeWrite: async (paths) => options.beforeWrite?.(paths),
    ...(options.approver && { approver: options.approver }),
    ...(hooks && { hooks }),
  };
  let n = 0;
  const call = (name: string, input: unknown) => registry.run({ id: `toolu_${++n}`, name, input }, ctx);
  return { call, events };
}

/** The @-mentions of `prompt` attached as a session would, with a fresh engine and `approver`. */
export function mentionsOf(
  where: { root: string; home: string },
  prompt: string,
  approver?: Approver,
): Promise<Attachments> {
  const engine = createPermissionEngine({ root: where.root, home: where.home, sandboxAvailable: true });
  return attachMentions(prompt, {
    root: where.root,
    home: where.home,
    engine,
    mode: "build",
    ...(approver && { approver }),
    signal: new AbortController().signal,
  });
}

/** Says yes to every question, doing `during` while the question is open. */
export function approving(during?: () => void): Approver & { asked: ApprovalRequest[] } {
  const asked: ApprovalRequest[] = [];
  return {
    asked,
    ask: async (request) => {
      asked.push(request);
      during?.();
      return "once";
    },
  };
}
