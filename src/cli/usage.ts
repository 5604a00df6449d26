// `--help` for every command, in one layout: the description, a usage line, then arguments,
// options and commands in left-aligned columns, each described, descriptions wrapped at word
// boundaries to the terminal with continuation lines indented under their column. (citty's own
// renderUsage right-aligns the names, pads lines with blanks and leaves --no-x undescribed.)
import type { ArgDef, ArgsDef, CommandDef, CommandMeta, SubCommandsDef } from "citty";
import { wrapWords } from "./wrap.ts";

type AnyCommand = CommandDef<any>;
type Resolvable<T> = T | Promise<T> | (() => T) | (() => Promise<T>);

async function resolve<T>(value: Resolvable<T> | undefined): Promise<T | undefined> {
  return typeof value === "function" ? await (value as () => T | Promise<T>)() : await value;
}

/** The name column and the description column of one row. */
type Row = readonly [string, string];

function optionRows(args: ArgsDef): Row[] {
  const rows: Row[] = [];
  for (const [name, def] of Object.entries(args) as Array<[string, ArgDef]>) {
    if (def.type === "positional") continue;
    const aliases = (def as { alias?: string | string[] }).alias;
    const alias = Array.isArray(aliases) ? aliases[0] : aliases;
    const value =
      def.type === "boolean"
        ? ""
        : ` <${def.valueHint ?? (def.type === "enum" && def.options ? def.options.join("|") : name)}>`;
    const flag = `${alias ? `-${alias}, ` : ""}--${name}${value}`;
    const description = def.description ?? "";
    if (def.type === "boolean" && def.default === true) {
      // On unless switched off: the --no- form is the one people type, and it says what it does.
      rows.push([
        `--no-${name}`,
        (def as { negativeDescription?: string }).negativeDescription ?? `Turn off: ${lowerFirst(description)}`,
      ]);
      continue;
    }
    const fallback = def.default !== undefined && def.type !== "boolean" ? ` (default: ${String(def.default)})` : "";
    rows.push([flag, `${description}${fallback}`]);
  }
  rows.push(["-h, --help", "Show this help"]);
  return rows;
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}

function positionals(args: ArgsDef): Array<{ name: string; def: ArgDef }> {
  return (Object.entries(args) as Array<[string, ArgDef]>)
    .filter(([, def]) => def.type === "positional")
    .map(([name, def]) => ({ name, def }));
}

/** Rows as two columns: names padded to the widest (at most 30), descriptions wrapped to `width`. */
function columns(rows: readonly Row[], width: number): string[] {
  const nameWidth = Math.min(30, Math.max(...rows.map(([name]) => name.length)));
  const indent = 2 + nameWidth + 2;
  const lines: string[] = [];
  for (const [name, description] of rows) {
    const wrapped = wrapWords(description, Math.max(20, width - indent));
    if (name.length > nameWidth) {
      lines.push(`  ${name}`);
      for (const line of wrapped) lines.push(`${" ".repeat(indent)}${line}`);
      continue;
    }
    lines.push(`  ${name.padEnd(nameWidth)}  ${wrapped[0] ?? ""}`.trimEnd());
    for (const line of wrapped.slice(1)) lines.push(`${" ".repeat(indent)}${line}`);
  }
  return lines;
}

/** The help text of `command` (a subcommand of `parent`, if given), for a screen `width` wide. */
export async function usageText(command: AnyCommand, parent?: AnyCommand, width = 80): Promise<string> {
  const meta = (await resolve<CommandMeta>(command.meta)) ?? {};
  const parentMeta = parent ? ((await resolve<CommandMeta>(parent.meta)) ?? {}) : undefined;
  const args = (await resolve<ArgsDef>(command.args)) ?? {};
  const subCommands = (await resolve<SubCommandsDef>(command.subCommands)) ?? {};
  const name = [parentMeta?.name, meta.name].filter(Boolean).join(" ");
  const sections: string[] = [];
  if (meta.description)
    sections.push(
      wrapWords(
        `${meta.description} (${name} ${meta.version ?? parentMeta?.version ?? ""})`.replace(/ \)$/, ")"),
        width,
      ).join("\n"),
    );

  const words = positionals(args);
  const usage = [
    `Usage: ${name}`,
    "[options]",
    ...words.map(({ name: arg, def }) =>
      def.required === false ? `[${arg.toUpperCase()}]` : `<${arg.toUpperCase()}>`,
    ),
  ];
  if (Object.keys(subCommands).length > 0) usage.push(`[${Object.keys(subCommands).join("|")}]`);
  sections.push(usage.join(" "));

  if (words.length > 0) {
    const rows = words.map(
      ({ name: arg, def }): Row => [
        arg.toUpperCase(),
        `${def.description ?? ""}${def.required === false ? "" : " (required)"}`,
      ],
    );
    sections.push(["Arguments:", ...columns(rows, width)].join("\n"));
  }
  sections.push(["Options:", ...columns(optionRows(args), width)].join("\n"));

  if (Object.keys(subCommands).length > 0) {
    const rows: Row[] = [];
    for (const [sub, load] of Object.entries(subCommands)) {
      const def = await resolve<AnyCommand>(load as Resolvable<AnyCommand>);
      const subMeta = def ? await resolve<CommandMeta>(def.meta) : undefined;
      rows.push([sub, subMeta?.description ?? ""]);
    }
    sections.push(
      ["Commands:", ...columns(rows, width), "", `\`${name} <command> --help\` says more about a command.`].join("\n"),
    );
  }
  return `${sections.join("\n\n")}\n`;
}

/**
 * A command's help footer wrapped to `width`: blocks separated by a blank line; a block's lines
 * that start with two blanks are rows of a table ("  0  done"), the rest a paragraph.
 */
export function footerText(footer: string, width: number): string {
  return footer
    .split("\n\n")
    .map((block) => {
      const lines = block.split("\n");
      const title = lines[0]?.startsWith("  ") ? [] : [lines.shift() as string];
      const rows = lines
        .filter((line) => line.startsWith("  "))
        .map((line): Row => {
          const match = /^ {2}(\S+)\s+(.*)$/.exec(line);
          return [match?.[1] ?? line.trim(), match?.[2] ?? ""];
        });
      if (rows.length === 0) return wrapWords(title.join(" "), width).join("\n");
      return [...title.flatMap((line) => wrapWords(line, width)), ...columns(rows, width)].join("\n");
    })
    .join("\n\n");
}
