// The chat's built-in commands: /help, /undo, /diff, /compact, /mode, /model, /permissions,
// /clear, /fork, /exit. Custom commands and skills are not here: Runtime.resolveCommand turns them into
// the prompt of a turn. Each command writes its answer to the screen and never reaches the model.
import type { GarudaPaths } from "../../config/paths.ts";
import type { ModelInfo } from "../../model/catalog.ts";
import type { Rule } from "../../permission/types.ts";
import type { Mode } from "../../core-types/mode.ts";
import {
  BUILT_IN_RULES,
  BUILTIN_DESCRIPTIONS,
  isSharedBuiltin,
  SOURCE_NAMES,
  type SharedBuiltin,
} from "../../runtime/builtinNames.ts";
import {
  type BuiltinAnswer,
  type CompactAnswer,
  type ModeAnswer,
  type ModelAnswer,
  type PermissionsAnswer,
  runSharedBuiltin,
} from "../../runtime/builtins.ts";
import type { BuiltinCommand } from "../../runtime/commands.ts";
import type { Runtime } from "../../runtime/runtime.ts";
import type { UndoResult } from "../../runtime/services.ts";
import { oneLine, visible } from "../../text/visible.ts";
import { describeFailure } from "../errors.ts";
import { colourDiff } from "./diffView.ts";
import type { TerminalAsker } from "./asker.ts";
import { rewindMenu } from "./rewind.ts";
import type { ChatInput } from "./input.ts";
import type { Screen } from "./screen.ts";
import type { Style } from "./style.ts";
import { tokens } from "./text.ts";

/** What the commands act on; the chat owns it (a restart replaces the runtime). */
export interface CommandHost {
  readonly runtime: Runtime;
  readonly model: ModelInfo;
  readonly paths: GarudaPaths;
  readonly screen: Screen;
  readonly style: Style;
  readonly input: ChatInput;
  /** The model's-question menus (asker.ts), for /rewind. */
  readonly asker: TerminalAsker;
  /** Puts text in the next prompt, to edit (a rewound prompt). */
  editNext(text: string): void;
  /** A new runtime with a new conversation (/clear), on the model in use. */
  restart(): Promise<void>;
  /** A new runtime that goes on in a fork of this session (/fork): the ids of both, or why not. */
  fork(): Promise<{ parent: string; fork: string } | { refused: string }>;
  exit(): void;
}

const MODE_TEXT: Readonly<Record<Mode, string>> = {
  build: "build — edits ask first; commands run in the sandbox",
  plan: "plan — reads and plans; no edits; commands cannot write the project",
};

const shown = (name: SharedBuiltin, extra = ""): [string, string] => [
  BUILTIN_DESCRIPTIONS[name].usage,
  `${BUILTIN_DESCRIPTIONS[name].description}${extra}`,
];

const HELP: ReadonlyArray<[string, string]> = [
  ["/help", "this list"],
  shown("undo"),
  ["/rewind", "go back to before a prompt: files, conversation or both (Esc Esc on an empty prompt too)"],
  shown("diff"),
  shown("compact"),
  shown("mode", " (Shift-Tab switches too)"),
  shown("model"),
  shown("permissions"),
  ["/permissions revoke N", "take back a rule you allowed for this session"],
  ["/clear", "start a new conversation"],
  ["/fork", "go on in a copy of this conversation (the original stays as it is)"],
  ["/exit", "leave (Ctrl-D, or Ctrl-C twice at the prompt)"],
];

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
    lines.push(
      ...columns(
        custom.map(
          (command) =>
            [
              `/${oneLine(command.name, 40)}${command.argumentHint ? ` ${oneLine(command.argumentHint, 30)}` : ""}`,
              oneLine(command.description, 120),
            ] as const,
        ),
        style,
      ),
    );
  }
  lines.push(
    "Keys: Enter sends · Shift-Enter, Alt-Enter or Ctrl-J (or \\ then Enter) adds a " +
      "line · Up/Down and Ctrl-R go through this project's earlier prompts · / and @ " +
      "open menus of commands and files (arrows, Enter or Tab picks, Esc closes) · " +
      "!cmd runs a shell command yourself · Shift-Tab switches build/plan · Ctrl-O " +
      "shows the whole transcript · While the model works: Enter queues, Tab steers · " +
      "Esc or Ctrl-C stops a turn · Ctrl-Z suspends · Ctrl-C twice or Ctrl-D exits",
    "A file named with @path (e.g. @src/main.ts) goes with the prompt; an image " +
      "(@shot.png) goes as an image to a model that takes images. A long paste shows " +
      "as [Pasted N lines] and is sent whole.",
  );
  screen.line(lines.join("\n"));
}

function undo(host: CommandHost, result: UndoResult): void {
  const { screen, style } = host;
  const list = (paths: string[]) => paths.map((path) => oneLine(path, 300)).join(", ");
  if (result.restored.length > 0) screen.line(style.green(`Restored ${list(result.restored)}.`));
  if (result.removed.length > 0)
    screen.line(
      style.green(`Removed ${list(result.removed)} (the turn created ${result.removed.length === 1 ? "it" : "them"}).`),
    );
  for (const note of result.notes) screen.line(visible(note));
  if (result.restored.length + result.removed.length + result.notes.length === 0) screen.line("Nothing to undo.");
}

function diff(host: CommandHost, text: string): void {
  const { screen, style } = host;
  screen.line(text.trim() === "" ? "No changes in this session." : colourDiff(visible(text.replace(/\n$/, "")), style));
}

/**
 * Switches the mode (/mode, Shift-Tab) and says so: the refusal, or the new mode and what the
 * switch stopped (plan mode ends the background processes that could write the project).
 */
export async function switchMode(
  host: Pick<CommandHost, "runtime" | "screen" | "style">,
  mode: Mode,
  options: { after?: string; dim?: boolean } = {},
): Promise<void> {
  const { screen, style } = host;
  const { refusal, notices } = await host.runtime.setMode(mode);
  const line = refusal ?? `Mode: ${MODE_TEXT[mode]}.${options.after ?? ""}`;
  screen.line(options.dim ? style.dim(line) : line);
  for (const text of notices) screen.line(style.yellow(`Garuda: ${visible(text)}`));
}

function compact(host: CommandHost, answer: CompactAnswer): void {
  const { screen, style } = host;
  if (answer.kind === "nothing") screen.line("Nothing to compact yet.");
  else if (answer.kind === "compacted")
    screen.line(
      `Compacted the conversation: ${tokens(answer.result.beforeTokens)} → ` +
        `${tokens(answer.result.afterTokens)} tokens.`,
    );
  else if (answer.kind === "stopped") screen.line("Compaction stopped; the conversation is as it was.");
  else screen.line(style.red(describeFailure(answer.error).text));
}

function mode(host: CommandHost, answer: ModeAnswer): void {
  const { screen } = host;
  if (answer.kind === "show") screen.line(`Mode: ${MODE_TEXT[answer.mode]}. Switch with /mode build or /mode plan.`);
  else if (answer.kind === "unknown")
    screen.line(`There is no mode "${oneLine(answer.name, 40)}". The modes are build and plan.`);
  else if (answer.kind === "refused") screen.line(answer.reason);
  else {
    screen.line(`Mode: ${MODE_TEXT[answer.mode]}. It applies from the next turn.`);
    for (const text of answer.notices) screen.line(host.style.yellow(`Garuda: ${visible(text)}`));
  }
}

function model(host: CommandHost, answer: ModelAnswer): void {
  const { screen, style } = host;
  switch (answer.kind) {
    case "show": {
      const models = answer.models.map((info) => (info.spec === answer.model.spec ? style.bold(info.spec) : info.spec));
      screen.line(
        [
          `Model: ${answer.model.spec}${answer.effort !== undefined ? ` (effort ${answer.effort})` : ""}. ` +
            `Switch with /model <name>; the conversation goes on.`,
          `Models you can use: ${models.join(", ")}`,
        ].join("\n"),
      );
      return;
    }
    case "same":
      screen.line(`Model: ${answer.model.spec} already.`);
      return;
    case "switched": {
      const compacted = answer.switched.compaction;
      if (compacted)
        screen.line(
          `Compacted the conversation to fit: ${tokens(compacted.beforeTokens)} → ` +
            `${tokens(compacted.afterTokens)} tokens.`,
        );
      screen.line(`Model: ${answer.model.spec}. The conversation goes on with it from the next request.`);
      return;
    }
    case "refused":
      screen.line(style.red(`${visible(answer.reason)}\nThe model stays ${answer.model.spec}.`));
      return;
  }
}

function ruleLine(rule: Rule, style: Style): string {
  const effect =
    rule.effect === "deny" ? style.red("deny ") : rule.effect === "ask" ? style.yellow("ask  ") : style.green("allow");
  const source = `${SOURCE_NAMES[rule.source]}${rule.file ? ` (${oneLine(rule.file, 200)})` : ""}`;
  return `${effect}  ${oneLine(rule.pattern, 200)}  ${style.dim(source)}`;
}

function permissions(host: CommandHost, answer: PermissionsAnswer): void {
  const { screen, style } = host;
  if (answer.kind === "no-rule") {
    screen.line(`No session rule "${oneLine(answer.which, 200)}". /permissions lists them.`);
    return;
  }
  if (answer.kind === "revoked") {
    screen.line(`Revoked ${oneLine(answer.rule.pattern, 200)}: the next such call asks again.`);
    return;
  }
  if (answer.kind === "usage") {
    screen.line("Use /permissions, or /permissions revoke N.");
    return;
  }
  const lines = ["Rules in force, strongest source first:"];
  if (answer.lasting.length === 0) lines.push("  none (no policy or project rules)");
  else lines.push(...answer.lasting.map((rule) => `  ${ruleLine(rule, style)}`));
  lines.push(style.dim(BUILT_IN_RULES));
  lines.push("This session's rules (your “Allow for this session” answers):");
  if (answer.session.length === 0) lines.push("  none");
  else {
    answer.session.forEach((rule, index) => lines.push(`  ${index + 1}. ${oneLine(rule.pattern, 200)}`));
    lines.push(style.dim("Take one back with /permissions revoke N."));
  }
  screen.line(lines.join("\n"));
}

/** Runs a shared built-in (runtime/builtins.ts) and shows its answer. /compact can be stopped with Ctrl-C. */
async function shared(host: CommandHost, name: SharedBuiltin, args: string): Promise<void> {
  const { screen, style, input } = host;
  const controller = new AbortController();
  const slow = name === "compact" || (name === "model" && args !== "");
  if (slow) {
    input.onInterrupt(() => controller.abort());
    screen.status(style.dim(name === "compact" ? "Compacting… (Ctrl-C to stop)" : "Switching the model…"));
  }
  let answer: BuiltinAnswer;
  try {
    answer = await runSharedBuiltin(host.runtime, name, args, controller.signal);
  } finally {
    if (slow) {
      screen.status(undefined);
      input.onInterrupt(undefined);
    }
  }
  switch (answer.command) {
    case "undo":
      return undo(host, answer.result);
    case "diff":
      return diff(host, answer.text);
    case "compact":
      return compact(host, answer.answer);
    case "mode":
      return mode(host, answer.answer);
    case "model":
      return model(host, answer.answer);
    case "permissions":
      return permissions(host, answer.answer);
  }
}

async function clear(host: CommandHost): Promise<void> {
  const { screen, style } = host;
  try {
    await host.restart();
  } catch (error) {
    screen.line(style.red(describeFailure(error).text));
    return;
  }
  if (screen.live) screen.raw("\x1b[2J\x1b[H");
  screen.markLineStart();
  screen.line("A new conversation. Rules you allowed for the last one start again.");
}

async function fork(host: CommandHost): Promise<void> {
  const { screen, style } = host;
  let forked: Awaited<ReturnType<CommandHost["fork"]>>;
  try {
    forked = await host.fork();
  } catch (error) {
    screen.line(style.red(describeFailure(error).text));
    return;
  }
  if ("refused" in forked) {
    screen.line(forked.refused);
    return;
  }
  screen.line(
    [
      `Forked: this chat goes on in session ${forked.fork}, a copy of the ` +
        `conversation so far. Rules you allowed for the last one start again.`,
      `Session ${forked.parent} stays as it was; to go back to it: ${style.cyan(`garuda --resume ${forked.parent}`)}`,
    ].join("\n"),
  );
}

export async function runBuiltin(name: BuiltinCommand, args: string, host: CommandHost): Promise<void> {
  if (isSharedBuiltin(name)) return shared(host, name, args);
  switch (name) {
    case "help":
      return help(host);
    case "clear":
      return clear(host);
    case "fork":
      return fork(host);
    case "rewind":
      return rewindMenu(host);
    case "exit":
      return host.exit();
  }
}
