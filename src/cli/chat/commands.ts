// The chat's built-in commands: /help, /undo, /diff, /compact, /mode, /model, /permissions,
// /clear, /exit. Custom commands and skills are not here: Runtime.resolveCommand turns them into
// the prompt of a turn. Each command writes its answer to the screen and never reaches the model.
import { loadModelCatalog } from "../../config/modelsFile.ts";
import type { GarudaPaths } from "../../config/paths.ts";
import type { ModelInfo } from "../../model/catalog.ts";
import type { PermissionEngine } from "../../permission/engine.ts";
import type { Mode, Rule, RuleSource } from "../../permission/types.ts";
import type { BuiltinCommand } from "../../runtime/commands.ts";
import type { Runtime } from "../../runtime/runtime.ts";
import { oneLine, visible } from "../../text/visible.ts";
import { describeFailure } from "../errors.ts";
import { colourDiff } from "./diffView.ts";
import type { ChatInput } from "./input.ts";
import type { Screen } from "./screen.ts";
import type { Style } from "./style.ts";
import { tokens } from "./text.ts";

/** What the commands act on; the chat owns it (a restart replaces the runtime). */
export interface CommandHost {
  readonly runtime: Runtime;
  readonly engine: PermissionEngine;
  readonly model: ModelInfo;
  readonly paths: GarudaPaths;
  readonly screen: Screen;
  readonly style: Style;
  readonly input: ChatInput;
  /** A new runtime: with another model (the conversation goes on), or a new conversation. */
  restart(options: { model?: string; fresh: boolean }): Promise<void>;
  exit(): void;
}

export const MODE_TEXT: Readonly<Record<Mode, string>> = {
  build: "build — edits ask first; commands run in the sandbox",
  plan: "plan — reads and plans; no edits; commands cannot write the project",
};

const HELP: ReadonlyArray<[string, string]> = [
  ["/help", "this list"],
  ["/undo", "put back the files the last turn changed"],
  ["/diff", "what this session changed in the project"],
  ["/compact [focus]", "summarize the conversation so far, to make room"],
  ["/mode [build|plan]", "show or switch the mode (Shift-Tab switches too)"],
  ["/model [name]", "show or switch the model; the conversation goes on"],
  ["/permissions", "the rules in force and this session's rules"],
  ["/permissions revoke N", "take back a rule you allowed for this session"],
  ["/clear", "start a new conversation"],
  ["/exit", "leave (Ctrl-D, or Ctrl-C twice at the prompt)"],
];

const SOURCE_NAMES: Readonly<Record<RuleSource, string>> = {
  "managed-policy": "managed policy",
  "user-policy": "your policy",
  project: "project settings",
  session: "this session",
  builtin: "built in",
};

function columns(rows: ReadonlyArray<readonly [string, string]>, style: Style): string[] {
  const width = Math.min(28, Math.max(...rows.map(([left]) => [...left].length)) + 2);
  return rows.map(([left, right]) => `  ${style.cyan(left.padEnd(width))}${right}`);
}

function help(host: CommandHost): void {
  const { screen, style, runtime } = host;
  const lines = ["Commands:", ...columns(HELP, style)];
  const custom = runtime.availableCommands();
  if (custom.length > 0) {
    lines.push("Custom commands and skills:");
    lines.push(...columns(custom.map((command) => [`/${oneLine(command.name, 40)}${command.argumentHint ? ` ${oneLine(command.argumentHint, 30)}` : ""}`, oneLine(command.description, 120)] as const), style));
  }
  lines.push(
    "Keys: Enter sends · Alt-Enter or Ctrl-J (or \\ then Enter) adds a line · Shift-Tab switches build/plan · Ctrl-C stops a turn · Ctrl-Z suspends · Ctrl-C twice or Ctrl-D exits",
    "A file named with @path (e.g. @src/main.ts) goes with the prompt.",
  );
  screen.line(lines.join("\n"));
}

async function undo(host: CommandHost): Promise<void> {
  const { screen, style, runtime } = host;
  const result = await runtime.undo();
  const list = (paths: string[]) => paths.map((path) => oneLine(path, 300)).join(", ");
  if (result.restored.length > 0) screen.line(style.green(`Restored ${list(result.restored)}.`));
  if (result.removed.length > 0) screen.line(style.green(`Removed ${list(result.removed)} (the turn created ${result.removed.length === 1 ? "it" : "them"}).`));
  for (const note of result.notes) screen.line(visible(note));
  if (result.restored.length + result.removed.length + result.notes.length === 0) screen.line("Nothing to undo.");
}

async function diff(host: CommandHost): Promise<void> {
  const { screen, style, runtime } = host;
  const text = await runtime.diff();
  screen.line(text.trim() === "" ? "No changes in this session." : colourDiff(visible(text.replace(/\n$/, "")), style));
}

async function compact(host: CommandHost, focus: string): Promise<void> {
  const { screen, style, runtime, input } = host;
  const controller = new AbortController();
  input.onInterrupt(() => controller.abort());
  screen.status(style.dim("Compacting… (Ctrl-C to stop)"));
  try {
    const result = await runtime.compact({ signal: controller.signal, ...(focus !== "" && { focus }) });
    screen.status(undefined);
    if (!result) screen.line("Nothing to compact yet.");
    else screen.line(`Compacted the conversation: ${tokens(result.beforeTokens)} → ${tokens(result.afterTokens)} tokens.`);
  } catch (error) {
    screen.status(undefined);
    screen.line(controller.signal.aborted ? "Compaction stopped; the conversation is as it was." : style.red(describeFailure(error).text));
  } finally {
    input.onInterrupt(undefined);
  }
}

async function mode(host: CommandHost, args: string): Promise<void> {
  const { screen, runtime } = host;
  if (args === "") {
    screen.line(`Mode: ${MODE_TEXT[runtime.mode]}. Switch with /mode build or /mode plan.`);
    return;
  }
  if (args !== "build" && args !== "plan") {
    screen.line(`There is no mode "${oneLine(args, 40)}". The modes are build and plan.`);
    return;
  }
  await switchMode(host, args, { after: " It applies from the next turn." });
}

/**
 * Switches the mode (/mode, Shift-Tab) and says so: the refusal, or the new mode and what the
 * switch stopped (plan mode ends the background processes that could write the project).
 */
export async function switchMode(host: Pick<CommandHost, "runtime" | "screen" | "style">, mode: Mode, options: { after?: string; dim?: boolean } = {}): Promise<void> {
  const { screen, style } = host;
  const { refusal, notices } = await host.runtime.setMode(mode);
  const line = refusal ?? `Mode: ${MODE_TEXT[mode]}.${options.after ?? ""}`;
  screen.line(options.dim ? style.dim(line) : line);
  for (const text of notices) screen.line(style.yellow(`Garuda: ${visible(text)}`));
}

async function model(host: CommandHost, args: string): Promise<void> {
  const { screen, style } = host;
  if (args === "") {
    const lines = [`Model: ${host.model.spec}. Switch with /model <name>; the conversation goes on.`];
    try {
      const specs = [...loadModelCatalog(host.paths.models).models.values()].map((info) => info.spec);
      lines.push(`Known models: ${specs.map((spec) => (spec === host.model.spec ? style.bold(spec) : spec)).join(", ")}`);
    } catch (error) {
      lines.push(style.red(describeFailure(error).text));
    }
    screen.line(lines.join("\n"));
    return;
  }
  try {
    await host.restart({ model: args, fresh: false });
    screen.line(`Model: ${host.model.spec}. Rules you allowed for this session start again.`);
  } catch (error) {
    screen.line(style.red(`${describeFailure(error).text}\nThe model stays ${host.model.spec}.`));
  }
}

function ruleLine(rule: Rule, style: Style): string {
  const effect = rule.effect === "deny" ? style.red("deny ") : rule.effect === "ask" ? style.yellow("ask  ") : style.green("allow");
  const source = `${SOURCE_NAMES[rule.source]}${rule.file ? ` (${oneLine(rule.file, 200)})` : ""}`;
  return `${effect}  ${oneLine(rule.pattern, 200)}  ${style.dim(source)}`;
}

function permissions(host: CommandHost, args: string): void {
  const { screen, style, engine } = host;
  const revoke = /^revoke\s+(.+)$/.exec(args);
  const session = engine.sessionRules();
  if (revoke) {
    const which = (revoke[1] as string).trim();
    const index = /^\d+$/.test(which) ? Number(which) - 1 : session.findIndex((rule) => rule.pattern === which);
    const rule = session[index];
    if (!rule || !engine.revokeSessionRule(rule.pattern)) {
      screen.line(`No session rule "${oneLine(which, 200)}". /permissions lists them.`);
      return;
    }
    screen.line(`Revoked ${oneLine(rule.pattern, 200)}: the next such call asks again.`);
    return;
  }
  if (args !== "") {
    screen.line("Use /permissions, or /permissions revoke N.");
    return;
  }
  const lasting = engine.rules().filter((rule) => rule.source !== "session" || !session.some((own) => own.pattern === rule.pattern));
  const lines = ["Rules in force, strongest source first:"];
  if (lasting.length === 0) lines.push("  none (no policy or project rules)");
  else lines.push(...lasting.map((rule) => `  ${ruleLine(rule, style)}`));
  lines.push(
    style.dim(
      "Built in: sensitive files (.env, keys …) and .git/ are never written; read-only tools run; commands in the OS sandbox run; plan mode changes nothing; everything else asks.",
    ),
  );
  lines.push("This session's rules (your “Allow for this session” answers):");
  if (session.length === 0) lines.push("  none");
  else {
    session.forEach((rule, index) => lines.push(`  ${index + 1}. ${oneLine(rule.pattern, 200)}`));
    lines.push(style.dim("Take one back with /permissions revoke N."));
  }
  screen.line(lines.join("\n"));
}

async function clear(host: CommandHost): Promise<void> {
  const { screen, style } = host;
  try {
    await host.restart({ fresh: true });
  } catch (error) {
    screen.line(style.red(describeFailure(error).text));
    return;
  }
  if (screen.live) screen.raw("\x1b[2J\x1b[H");
  screen.markLineStart();
  screen.line("A new conversation. Rules you allowed for the last one start again.");
}

export async function runBuiltin(name: BuiltinCommand, args: string, host: CommandHost): Promise<void> {
  switch (name) {
    case "help":
      return help(host);
    case "undo":
      return undo(host);
    case "diff":
      return diff(host);
    case "compact":
      return compact(host, args);
    case "mode":
      return mode(host, args);
    case "model":
      return model(host, args);
    case "permissions":
      return permissions(host, args);
    case "clear":
      return clear(host);
    case "exit":
      return host.exit();
  }
}

