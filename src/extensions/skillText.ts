// A skill as the model reads it, from the skill tool or from `/name args`: its SKILL.md body
// (arguments and ${GARUDA_SKILL_DIR} filled in) in a <skill> block, then its other files. A
// project skill is read only after the user's yes to its current SKILL.md.
import { cleanText, previewText } from "./clean.ts";
import { type ConsentAnswer, type Consents, consentTool } from "./consent.ts";
import { expandArguments } from "./expand.ts";
import { MAX_SKILL_CHARS, readSkillBody, type Skill, skillFiles } from "./skills.ts";

const PREVIEW_CHARS = 4_000;

/** The skill's text for the model; `args` undefined: the body as written. */
export function skillBlock(skill: Skill, body: string, args: string | undefined): string {
  const withDir = body.replace(/\$\{(?:GARUDA|CLAUDE)_SKILL_DIR\}/g, skill.dir);
  const text = args === undefined ? withDir : expandArguments(withDir, args, "zero-based");
  const files = skillFiles(skill);
  const list =
    files.length > 0
      ? `\n\nOther files in ${skill.dir} (read one with the skill tool's file input, or ` +
        `with read_file when it is in the ` +
        `project):\n${files.map((file) => `- ${file}`).join("\n")}`
      : "";
  return `<skill name="${skill.name}" folder="${skill.dir}">\n${cleanText(text, MAX_SKILL_CHARS)}\n</skill>${list}`;
}

/** One other file of the skill, for the model. */
export function skillFileBlock(skill: Skill, path: string, text: string): string {
  return `<skill name="${skill.name}" file="${path}">\n${cleanText(text, MAX_SKILL_CHARS * 2)}\n</skill>`;
}

/** The body now, after the consent a project skill needs. */
export async function loadSkillBody(
  skill: Skill,
  consents: Consents,
  signal: AbortSignal,
): Promise<{ body: string } | { refused: string }> {
  const read = readSkillBody(skill);
  if ("problem" in read) return { refused: `The skill file ${skill.file} ${read.problem}.` };
  if (skill.scope === "project") {
    const answer: ConsentAnswer = await consents.ask(
      {
        kind: "skills",
        name: skill.name,
        hash: read.hash,
        tool: consentTool("skill", skill.name),
        title: `Project skill: ${skill.name}`,
        preview: `${skill.file}\n\n${previewText(read.body, PREVIEW_CHARS)}`,
        question: `Let the model use the project skill "${skill.name}"? Its text becomes part of the conversation.`,
      },
      signal,
    );
    if (!answer.allowed) return { refused: `The project skill "${skill.name}" was not loaded: ${answer.reason}.` };
  }
  return { body: read.body };
}
