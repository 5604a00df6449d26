// Skills: folders with a SKILL.md (frontmatter `name`, `description`) under ~/.garuda/skills/ and
// ~/.agents/skills/ (the user's, trusted), and <root>/.garuda/skills/ and <root>/.agents/skills/
// (the project's, loaded only after a consent). Only names and descriptions are read at session
// start; a skill's body is read when it is used.
import { join, relative, resolve, sep } from "node:path";
import { readdirSync } from "node:fs";
import type { GarudaPaths } from "../config/paths.ts";
import type { ExtensionScope } from "./commandFiles.ts";
import { booleanField, parseMarkdown, textField } from "./frontmatter.ts";
import { entryKind } from "../files/entryKind.ts";
import { readExtensionFile } from "./extensionFiles.ts";

export const MAX_SKILL_CHARS = 50_000;
const MAX_SKILL_FILE_CHARS = 100_000;
const MAX_SKILLS = 100;
const MAX_LISTED_FILES = 50;
const MAX_DESCRIPTION = 1_536;
const SKILL_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

export interface Skill {
  name: string;
  scope: ExtensionScope;
  /** The skill's folder (absolute). */
  dir: string;
  /** Its SKILL.md. */
  file: string;
  description: string;
  argumentHint?: string;
  /** Listed in the skill tool (frontmatter `disable-model-invocation: true` turns it off). */
  modelInvocable: boolean;
  /** Runs as /name (frontmatter `user-invocable: false` turns it off). */
  userInvocable: boolean;
}

export interface SkillFolder {
  dir: string;
  scope: ExtensionScope;
}

/** Where skills live, in the order a name clash is decided: the user's first. */
export function skillFolders(paths: Pick<GarudaPaths, "home" | "skills">, root: string): SkillFolder[] {
  return [
    { dir: paths.skills, scope: "user" },
    { dir: join(paths.home, ".agents", "skills"), scope: "user" },
    { dir: join(root, ".garuda", "skills"), scope: "project" },
    { dir: join(root, ".agents", "skills"), scope: "project" },
  ];
}

function firstLine(body: string): string {
  return (body.split("\n").find((line) => line.trim().length > 0) ?? "").replace(/^#+\s*/, "").trim();
}

function readSkill(dir: string, scope: ExtensionScope, notices: string[]): Skill | undefined {
  const file = join(dir, "SKILL.md");
  const read = readExtensionFile(file, MAX_SKILL_CHARS);
  if ("problem" in read) {
    notices.push(`The skill file ${file} ${read.problem}; it was skipped.`);
    return undefined;
  }
  const { fields, body } = parseMarkdown(read.text);
  const folderName = dir.split(sep).at(-1)?.toLowerCase() ?? "";
  const name = (textField(fields, "name") ?? folderName).toLowerCase();
  if (!SKILL_NAME.test(name) || name.length > 64) {
    notices.push(
      `The skill in ${dir} has the name "${name}", which is not a valid skill name ` +
        `(a-z, 0-9 and single hyphens, at most 64); it was skipped.`,
    );
    return undefined;
  }
  const whenToUse = textField(fields, "when_to_use");
  const description = [textField(fields, "description") ?? firstLine(body), whenToUse]
    .filter(Boolean)
    .join(" ")
    .slice(0, MAX_DESCRIPTION);
  const argumentHint = textField(fields, "argument-hint");
  return {
    name,
    scope,
    dir,
    file,
    description,
    ...(argumentHint && { argumentHint }),
    modelInvocable: booleanField(fields, "disable-model-invocation") !== true,
    userInvocable: booleanField(fields, "user-invocable") !== false,
  };
}

/** The skills of these folders; the first folder wins a name clash (a project skill cannot shadow the user's). */
export function loadSkills(folders: readonly SkillFolder[], notices: string[]): Skill[] {
  const skills = new Map<string, Skill>();
  for (const folder of folders) {
    const kind = entryKind(folder.dir);
    if (kind === "missing") continue;
    if (kind !== "dir") {
      notices.push(
        `${folder.dir} is ${kind === "symlink" ? "a symbolic link" : "not a folder"}, ` +
          `so Garuda does not read skills from it.`,
      );
      continue;
    }
    let names: string[];
    try {
      names = readdirSync(folder.dir).sort();
    } catch {
      notices.push(`${folder.dir} cannot be read.`);
      continue;
    }
    for (const name of names) {
      const dir = join(folder.dir, name);
      if (name.startsWith(".") || entryKind(dir) !== "dir" || entryKind(join(dir, "SKILL.md")) === "missing") continue;
      if (skills.size >= MAX_SKILLS) {
        notices.push(`More than ${MAX_SKILLS} skills were found; ${dir} and the rest were skipped.`);
        return byName([...skills.values()]);
      }
      const skill = readSkill(dir, folder.scope, notices);
      if (!skill) continue;
      const first = skills.get(skill.name);
      if (first) {
        if (first.scope !== skill.scope)
          notices.push(`The project skill "${skill.name}" (${dir}) has the name of one of yours; yours is used.`);
        continue;
      }
      skills.set(skill.name, skill);
    }
  }
  return byName([...skills.values()]);
}

const byName = (skills: Skill[]) => skills.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

/** A skill's body as it is now, with the SHA-256 of its SKILL.md. */
export function readSkillBody(skill: Skill): { body: string; hash: string } | { problem: string } {
  const read = readExtensionFile(skill.file, MAX_SKILL_CHARS);
  if ("problem" in read) return read;
  return { body: parseMarkdown(read.text).body, hash: read.hash };
}

/** The skill folder's other files (relative paths), at most MAX_LISTED_FILES, three levels deep. */
export function skillFiles(skill: Skill): string[] {
  const files: string[] = [];
  const walk = (dir: string, depth: number) => {
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch {
      return;
    }
    for (const name of names) {
      if (files.length >= MAX_LISTED_FILES || name.startsWith(".")) continue;
      const path = join(dir, name);
      const kind = entryKind(path);
      if (kind === "dir" && depth < 3) walk(path, depth + 1);
      else if (kind === "file" && path !== skill.file) files.push(relative(skill.dir, path));
    }
  };
  walk(skill.dir, 1);
  return files;
}

/** One file of a skill's folder, by relative path: it must stay inside the folder, no symlinks, text only. */
export function readSkillFile(skill: Skill, path: string): { text: string } | { problem: string } {
  const full = resolve(skill.dir, path);
  const rel = relative(skill.dir, full);
  if (rel === "" || rel.startsWith("..") || resolve(skill.dir, rel) !== full)
    return { problem: `${path} is not inside the skill's folder` };
  let current = skill.dir;
  for (const part of rel.split(sep)) {
    current = join(current, part);
    if (entryKind(current) === "symlink")
      return { problem: `${path} goes through a symbolic link, which Garuda does not follow` };
  }
  const read = readExtensionFile(full, MAX_SKILL_FILE_CHARS);
  return "problem" in read ? { problem: `${path} ${read.problem}` } : { text: read.text };
}
