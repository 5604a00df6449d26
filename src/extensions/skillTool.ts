// skill: the model loads a skill by name. Read-only; its description lists every skill the
// model may use (name and description only, fixed for the session, so the tool specs stay
// byte-stable); the body is read when the skill is used.
import { z } from "zod";
import { shortLine } from "./clean.ts";
import type { Consents } from "./consent.ts";
import description from "./skillTool.txt" with { type: "text" };
import { loadSkillBody, skillBlock, skillFileBlock } from "./skillText.ts";
import { readSkillFile, type Skill } from "./skills.ts";
import type { PlanWithState, Tool, ToolResult } from "../tools/types.ts";

const LISTED_DESCRIPTION = 250;

export interface SkillInput {
  name: string;
  arguments?: string | undefined;
  file?: string | undefined;
}

/** The tool's description: the fixed text, then one line per skill. */
export function skillToolDescription(skills: readonly Skill[]): string {
  const lines = skills.map((skill) => `- ${skill.name}: ${shortLine(skill.description, LISTED_DESCRIPTION)}`);
  return `${description.trim()}\n\nSkills:\n${lines.join("\n")}`;
}

/** The skill tool over these skills (those the model may invoke); undefined when there are none. */
export function skillTool(
  all: readonly Skill[],
  consents: Consents,
): Tool<SkillInput, PlanWithState<SkillInput, Skill | undefined>> | undefined {
  const skills = all.filter((skill) => skill.modelInvocable);
  const names = skills.map((skill) => skill.name);
  const [first, ...rest] = names;
  if (first === undefined) return undefined;
  const input = z.object({
    name: z.enum([first, ...rest]).describe("The skill to load."),
    arguments: z.string().max(4_000).optional().describe("Text for the skill's $ARGUMENTS, if it takes any."),
    file: z
      .string()
      .min(1)
      .max(500)
      .optional()
      .describe("A file of the skill's folder to read instead of SKILL.md (a relative path)."),
  });
  return {
    name: "skill",
    description: skillToolDescription(skills),
    input,
    readOnly: true,
    plan(args) {
      const skill = skills.find((s) => s.name === args.name);
      return {
        input: args,
        info: {
          title: args.file ? `Skill: ${args.name} (${args.file})` : `Skill: ${args.name}`,
          kind: "read",
          locations: skill ? [{ path: skill.file }] : [],
        },
        permission: {
          tool: "skill",
          readOnly: true,
          target: { kind: "input" },
          preview: `Load the skill ${args.name}`,
        },
        state: skill,
      };
    },
    async run({ input: args, state: skill }, ctx): Promise<ToolResult> {
      if (!skill) return { output: `Error: there is no skill named "${args.name}".`, isError: true };
      const loaded = await loadSkillBody(skill, consents, ctx.signal);
      if ("refused" in loaded) return { output: `Error: ${loaded.refused} Go on without it.`, isError: true };
      if (args.file !== undefined) {
        const file = readSkillFile(skill, args.file);
        if ("problem" in file) return { output: `Error: ${file.problem}.`, isError: true };
        return { output: skillFileBlock(skill, args.file, file.text), summary: args.file };
      }
      return { output: skillBlock(skill, loaded.body, args.arguments), summary: `skill ${skill.name}` };
    },
  };
}
