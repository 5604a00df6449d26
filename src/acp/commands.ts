// The built-in commands over ACP: /undo, /diff, /compact, /permissions, /mode and /model run in
// the core (runtime/builtins.ts), as in the terminal, and never reach the model; this file only
// words their answers for the editor (Markdown, every file name and rule made visible and kept
// from being markup). /help, /clear and /exit act on the terminal's screen and process: over ACP
// they say what to do instead, as /fork does (the editor forks a thread with session/fork). The editor's / menu lists
// the built-ins first.
import type { AvailableCommand } from "@agentclientprotocol/sdk";
import { messageOf } from "../errors/caught.ts";
import type { Rule } from "../permission/types.ts";
import {
  BUILT_IN_RULES,
  BUILTIN_DESCRIPTIONS,
  isSharedBuiltin,
  SOURCE_NAMES,
  SHARED_BUILTINS,
} from "../runtime/builtinNames.ts";
import type { BuiltinAnswer, ModelAnswer, PermissionsAnswer } from "../runtime/builtins.ts";
import type { BuiltinCommand } from "../runtime/commands.ts";
import type { Runtime } from "../runtime/runtime.ts";
import type { EventSink } from "../core-types/events.ts";
import { hasHidden, oneLine, visible } from "../text/visible.ts";
import { codeBlock, escapeMarkdown, inlineCode } from "./codeBlock.ts";
import { compactionLine } from "./compaction.ts";

/** The built-ins in the editor's / menu, before the custom commands and skills. */
export function builtinCommands(): AvailableCommand[] {
  return SHARED_BUILTINS.map((name) => {
    const { description, hint } = BUILTIN_DESCRIPTIONS[name];
    return {
      name,
      description: description.charAt(0).toUpperCase() + description.slice(1),
      ...(hint && { input: { hint } }),
    };
  });
}

/** The runtime's commands and skills as the editor's / menu lists them; undefined when listing failed. */
export function commandList(runtime: Runtime, log: (text: string) => void): AvailableCommand[] | undefined {
  try {
    const builtins = builtinCommands();
    const custom = runtime
      .availableCommands()
      // A built-in wins over a custom command of its name (resolveCommand), so the menu lists it once.
      .filter((command) => !builtins.some((builtin) => builtin.name === command.name))
      // Names are checked where they are read (a name part, [a-z0-9_-]); one that is not plain is left out all the
      // same.
      .filter((command) => !hasHidden(command.name))
      .map((command) => ({
        name: command.name,
        description: oneLine(command.description),
        ...(command.argumentHint && { input: { hint: oneLine(command.argumentHint) } }),
      }));
    return [...builtins, ...custom];
  } catch (error) {
    log(`garuda acp: listing the commands failed: ${messageOf(error)}`);
    return undefined;
  }
}

const TERMINAL_ONLY: Readonly<Record<Exclude<BuiltinCommand, (typeof SHARED_BUILTINS)[number]>, string>> = {
  help: "Type / to see the commands.",
  rewind: "An editor rewinds with the _session/rewind extension; /undo N puts back the files of the last N turns.",
  clear: "Start a new thread for a new conversation.",
  fork:
    "Fork the thread from the editor's thread menu, where the editor offers it (ACP " +
    "session/fork); in the terminal, /fork.",
  exit: "Close the thread to end the session.",
};

/** What a command answers: text for the answer, and lines from Garuda (a compaction). */
export interface CommandReply {
  text: string;
  notices: string[];
}

const files = (paths: string[]) => paths.map((path) => inlineCode(oneLine(path, 300))).join(", ");

function ruleLine(rule: Rule): string {
  const source = `${SOURCE_NAMES[rule.source]}${rule.file ? ` (${escapeMarkdown(oneLine(rule.file, 200))})` : ""}`;
  return `- **${rule.effect}** ${inlineCode(oneLine(rule.pattern, 200))} — ${source}`;
}

function permissionsText(answer: PermissionsAnswer): string {
  if (answer.kind === "no-rule")
    return `No session rule ${inlineCode(oneLine(answer.which, 200))}. /permissions lists them.`;
  if (answer.kind === "revoked")
    return `Revoked ${inlineCode(oneLine(answer.rule.pattern, 200))}: the next such call asks again.`;
  if (answer.kind === "usage") return "Use /permissions, or /permissions revoke N.";
  const lines = ["**Rules in force**, strongest source first:", ""];
  lines.push(...(answer.lasting.length === 0 ? ["- none (no policy or project rules)"] : answer.lasting.map(ruleLine)));
  lines.push("", BUILT_IN_RULES, "", "**This session's rules** (your “Allow for this session” answers):", "");
  if (answer.session.length === 0) lines.push("- none");
  else {
    answer.session.forEach((rule, index) => lines.push(`${index + 1}. ${inlineCode(oneLine(rule.pattern, 200))}`));
    lines.push("", "Take one back with /permissions revoke N.");
  }
  return lines.join("\n");
}

function modelText(answer: ModelAnswer): string {
  const name = (spec: string) => inlineCode(oneLine(spec, 120));
  switch (answer.kind) {
    case "show":
      return [
        `Model: ${name(answer.model.spec)}${answer.effort !== undefined ? `, effort ${answer.effort}` : ""}. ` +
          `Switch with the editor's model menu, or /model <name>; the conversation goes ` +
          `on.`,
        "",
        `Models you can use: ${answer.models.map((info) => name(info.spec)).join(", ")}.`,
      ].join("\n");
    case "same":
      return `Model: ${name(answer.model.spec)} already.`;
    case "switched":
      return `Model: ${name(answer.model.spec)}. The conversation goes on with it from the next request.`;
    case "refused":
      return `${escapeMarkdown(visible(answer.reason))} The model stays ${name(answer.model.spec)}.`;
  }
}

/** `entries`: a /compact was shown as compaction_update entries (compaction.ts), which say how it ended. */
function reply(answer: BuiltinAnswer, entries: boolean): CommandReply {
  switch (answer.command) {
    case "undo": {
      const { restored, removed, notes } = answer.result;
      const lines: string[] = [];
      if (restored.length > 0) lines.push(`Restored ${files(restored)}.`);
      if (removed.length > 0)
        lines.push(`Removed ${files(removed)} (the turn created ${removed.length === 1 ? "it" : "them"}).`);
      lines.push(...notes.map((note) => escapeMarkdown(visible(note))));
      return { text: lines.length > 0 ? lines.join("\n\n") : "Nothing to undo.", notices: [] };
    }
    case "diff": {
      const text = answer.text.replace(/\n$/, "");
      return {
        text: text.trim() === "" ? "No changes in this session." : codeBlock(visible(text), "diff"),
        notices: [],
      };
    }
    case "compact": {
      const { answer: outcome } = answer;
      if (entries && outcome.kind !== "nothing") return { text: "", notices: [] };
      if (outcome.kind === "compacted")
        return { text: "", notices: [compactionLine(outcome.result.beforeTokens, outcome.result.afterTokens)] };
      if (outcome.kind === "nothing") return { text: "Nothing to compact yet.", notices: [] };
      if (outcome.kind === "stopped")
        return { text: "Compaction stopped; the conversation is as it was.", notices: [] };
      return { text: `Compaction failed: ${escapeMarkdown(visible(messageOf(outcome.error)))}`, notices: [] };
    }
    case "permissions":
      return { text: permissionsText(answer.answer), notices: [] };
    case "mode": {
      const mode = answer.answer;
      if (mode.kind === "show")
        return {
          text:
            `Mode: ${mode.mode}. Switch with the editor's mode menu, or /mode ` +
            `${mode.modes.filter((m) => m !== mode.mode).join(" or /mode ") || mode.mode}.`,
          notices: [],
        };
      if (mode.kind === "unknown")
        return {
          text: `There is no mode ${inlineCode(oneLine(mode.name, 40))}. The modes are build and plan.`,
          notices: [],
        };
      if (mode.kind === "refused") return { text: escapeMarkdown(visible(mode.reason)), notices: [] };
      return { text: `Mode: ${mode.mode}. It applies from the next turn.`, notices: [] };
    }
    case "model":
      return { text: modelText(answer.answer), notices: [] };
  }
}

/**
 * Runs a built-in for the editor; `signal` (the prompt's) stops a /compact. `compaction`: where a
 * /compact's compaction events go, for a client that takes compaction entries (else its answer
 * says how it went).
 */
export async function runCommand(
  runtime: Runtime,
  name: BuiltinCommand,
  args: string,
  signal: AbortSignal,
  compaction?: EventSink,
): Promise<CommandReply> {
  if (!isSharedBuiltin(name)) return { text: `/${name} is a terminal command. ${TERMINAL_ONLY[name]}`, notices: [] };
  // The core's half: loaded with the session, not at start-up.
  const { runSharedBuiltin } = await import("../runtime/builtins.ts");
  return reply(await runSharedBuiltin(runtime, name, args, signal, compaction), compaction !== undefined);
}

/** The line for a / command nobody knows: it names the commands there are. */
export function unknownCommandLine(runtime: Pick<Runtime, "availableCommands">, name: string): string {
  const names = runtime.availableCommands().map((c) => `/${c.name}`);
  const there =
    names.length > 0 ? `The commands are: ${names.join(", ")}.` : "This project has no custom commands or skills.";
  return `/${name} is not a command of this project. ${there}`;
}
