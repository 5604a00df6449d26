// The session's `/name` commands: custom commands, skills and MCP prompts behind the Runtime's
// CommandProvider. A name clash is decided user first (a project cannot shadow the user's), a
// skill before a command, MCP prompts last; a file with a built-in's name is left out. Every file
// left out is a notice. The user's own commands expand at once; a project's, and MCP prompts,
// expand in the turn (DeferredCommand), after the consent or the server's answer.
import { BUILTIN_COMMANDS } from "../runtime/commands.ts";
import type { CommandInfo, CommandProvider, DeferredCommand } from "../runtime/services.ts";
import { cleanText, previewText } from "./clean.ts";
import { type CommandFile, MAX_COMMAND_CHARS, readCommandText } from "./commandFiles.ts";
import { type Consents, consentTool } from "./consent.ts";
import { expandArguments } from "./expand.ts";
import { loadSkillBody, skillBlock } from "./skillText.ts";
import { readSkillBody, type Skill } from "./skills.ts";

const PREVIEW_CHARS = 4_000;

/** Commands that come and go with their source (an MCP server's prompts). */
export interface PromptSource {
  list(): CommandInfo[];
  resolve(name: string, args: string): DeferredCommand | undefined;
}

type Entry = { kind: "command"; command: CommandFile } | { kind: "skill"; skill: Skill };

const refused = (text: string): DeferredCommand => ({ expand: async () => ({ refused: text }) });

function skillPrompt(skill: Skill, body: string, args: string): string {
  return `Use the skill "${skill.name}" for this request.\n\n${skillBlock(skill, body, args)}`;
}

function commandDeferred(command: CommandFile, args: string, consents: Consents): DeferredCommand {
  return {
    async expand(signal) {
      const read = readCommandText(command.path);
      if ("problem" in read) return { refused: `/${command.name} did not run: ${command.path} ${read.problem}.` };
      const answer = await consents.ask(
        {
          kind: "commands",
          name: command.name,
          hash: read.hash,
          tool: consentTool("command", command.name),
          title: `Project command: /${command.name}`,
          preview: `${command.path}\n\n${previewText(read.body, PREVIEW_CHARS)}`,
          question: `Run the project command /${command.name}? Its text becomes your prompt to the model.`,
        },
        signal,
      );
      if (!answer.allowed) return { refused: `/${command.name} did not run: ${answer.reason}.` };
      return { text: expandArguments(cleanText(read.body, MAX_COMMAND_CHARS), args, "one-based") };
    },
  };
}

function skillDeferred(skill: Skill, args: string, consents: Consents): DeferredCommand {
  return {
    async expand(signal) {
      const loaded = await loadSkillBody(skill, consents, signal);
      if ("refused" in loaded) return { refused: `/${skill.name} did not run: ${loaded.refused}` };
      return { text: skillPrompt(skill, loaded.body, args) };
    },
  };
}

export interface CommandProviderOptions {
  commands: readonly CommandFile[];
  skills: readonly Skill[];
  consents: Consents;
  prompts?: PromptSource;
  /** Where a file left out (a built-in's name, a clash) is reported. */
  notices: string[];
}

const OWNER = { user: "your", project: "the project's" } as const;

function describeEntry(entry: Entry): string {
  return entry.kind === "skill"
    ? `${OWNER[entry.skill.scope]} skill (${entry.skill.file})`
    : `${OWNER[entry.command.scope]} command (${entry.command.path})`;
}

export function createCommandProvider(options: CommandProviderOptions): CommandProvider {
  const entries = new Map<string, Entry>();
  const add = (name: string, entry: Entry) => {
    if ((BUILTIN_COMMANDS as readonly string[]).includes(name)) {
      options.notices.push(
        `/${name} is Garuda's own command, so ${describeEntry(entry)} cannot use that name; rename it.`,
      );
      return;
    }
    const first = entries.get(name);
    if (!first) {
      entries.set(name, entry);
      return;
    }
    options.notices.push(
      `/${name}: ${describeEntry(first)} is used; ${describeEntry(entry)} has the same name and is left out.`,
    );
  };
  for (const scope of ["user", "project"] as const) {
    for (const skill of options.skills)
      if (skill.scope === scope && skill.userInvocable) add(skill.name, { kind: "skill", skill });
    for (const command of options.commands)
      if (command.scope === scope) add(command.name, { kind: "command", command });
  }

  const info = (name: string, entry: Entry): CommandInfo => {
    const source = entry.kind === "skill" ? entry.skill : entry.command;
    return { name, description: source.description, ...(source.argumentHint && { argumentHint: source.argumentHint }) };
  };

  return {
    list() {
      const listed = [...entries].map(([name, entry]) => info(name, entry));
      for (const prompt of options.prompts?.list() ?? []) if (!entries.has(prompt.name)) listed.push(prompt);
      return listed.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    },
    resolve(name, args) {
      const entry = entries.get(name);
      if (!entry) return options.prompts?.resolve(name, args);
      if (entry.kind === "command") {
        if (entry.command.scope === "project") return commandDeferred(entry.command, args, options.consents);
        const read = readCommandText(entry.command.path);
        if ("problem" in read) return refused(`/${name} did not run: ${entry.command.path} ${read.problem}.`);
        return expandArguments(cleanText(read.body, MAX_COMMAND_CHARS), args, "one-based");
      }
      if (entry.skill.scope === "project") return skillDeferred(entry.skill, args, options.consents);
      const read = readSkillBody(entry.skill);
      if ("problem" in read) return refused(`/${name} did not run: ${entry.skill.file} ${read.problem}.`);
      return skillPrompt(entry.skill, read.body, args);
    },
  };
}
