// Custom agents: Markdown files under ~/.garuda/agents/ (the user's) and <root>/.garuda/agents/
// (the project's, run only after a consent), in the Claude Code format: frontmatter `name`,
// `description`, `tools` (Claude's names are mapped to Garuda's), `model` (a spec, a family name
// such as `haiku`, or `inherit`), `maxTurns`; the body is the agent's instructions. Without
// `tools` an agent can only search and read.
import { join } from "node:path";
import type { GarudaPaths } from "../config/paths.ts";
import type { ExtensionScope } from "./commandFiles.ts";
import { listField, parseMarkdown, textField } from "./frontmatter.ts";
import { listFiles, NAME_PART, readExtensionFile } from "./extensionFiles.ts";
import { EXPLORE_TOOLS } from "../tools/explore.ts";

const MAX_AGENT_CHARS = 50_000;
const MAX_AGENTS = 50;
/** An agent's steps: its maxTurns may only lower this. */
const AGENT_MAX_STEPS = 20;
/** An agent file that lists no tools gets explore's: search and read only. */
const DEFAULT_AGENT_TOOLS = EXPLORE_TOOLS;

/** Claude Code's tool names, as Garuda's. */
const CLAUDE_TOOLS: Readonly<Record<string, string>> = {
  read: "read_file",
  glob: "glob",
  grep: "grep",
  ls: "glob",
  edit: "edit_file",
  multiedit: "edit_file",
  write: "write_file",
  bash: "bash",
  webfetch: "web_fetch",
  todowrite: "todo",
};
/** Tools a custom agent never gets: subagents do not nest. */
const NEVER = new Set(["agent", "explore"]);

export interface AgentDefinition {
  name: string;
  scope: ExtensionScope;
  path: string;
  description: string;
  tools: string[];
  maxSteps: number;
  /** The model the file asks for, if any (and not "inherit"). */
  model?: string;
}

function mapTool(name: string): string | undefined {
  const mapped = CLAUDE_TOOLS[name.toLowerCase()];
  if (mapped) return mapped;
  if (/^mcp__/.test(name)) return name;
  if (/^[a-z][a-z0-9_]*$/.test(name)) return name;
  return undefined;
}

function parseAgent(
  path: string,
  fileName: string,
  scope: ExtensionScope,
  text: string,
  notices: string[],
): AgentDefinition | undefined {
  const { fields, body } = parseMarkdown(text);
  const name = (textField(fields, "name") ?? fileName).toLowerCase();
  if (!NAME_PART.test(name)) {
    notices.push(
      `The agent file ${path} names the agent "${name}", which is not a valid name ` +
        `(letters, digits, "_" and "-"); it was skipped.`,
    );
    return undefined;
  }
  if (body.length === 0) {
    notices.push(`The agent file ${path} has no instructions; it was skipped.`);
    return undefined;
  }
  const tools: string[] = [];
  for (const listed of listField(fields, "tools") ?? [...DEFAULT_AGENT_TOOLS]) {
    const mapped = mapTool(listed);
    if (mapped === undefined)
      notices.push(
        `The agent "${name}" (${path}) lists the tool "${listed}", which Garuda does not have; it was left out.`,
      );
    else if (!NEVER.has(mapped) && !tools.includes(mapped)) tools.push(mapped);
  }
  const turns = Number(textField(fields, "maxturns") ?? Number.NaN);
  const maxSteps = Number.isInteger(turns) && turns > 0 ? Math.min(turns, AGENT_MAX_STEPS) : AGENT_MAX_STEPS;
  const model = textField(fields, "model");
  const description =
    textField(fields, "description") ??
    (body.split("\n").find((line) => line.trim()) ?? "").replace(/^#+\s*/, "").trim();
  return { name, scope, path, description, tools, maxSteps, ...(model && model !== "inherit" && { model }) };
}

/** The agents of the user's and the project's folders; the user's win a name clash. */
export function loadAgents(paths: Pick<GarudaPaths, "agents">, root: string, notices: string[]): AgentDefinition[] {
  const agents = new Map<string, AgentDefinition>();
  const folders: Array<{ dir: string; scope: ExtensionScope }> = [
    { dir: paths.agents, scope: "user" },
    { dir: join(root, ".garuda", "agents"), scope: "project" },
  ];
  for (const folder of folders) {
    for (const file of listFiles(folder.dir, { maxDepth: 0, maxFiles: MAX_AGENTS, suffix: ".md" }, notices)) {
      const read = readExtensionFile(file.path, MAX_AGENT_CHARS);
      if ("problem" in read) {
        notices.push(`The agent file ${file.path} ${read.problem}; it was skipped.`);
        continue;
      }
      const agent = parseAgent(file.path, file.parts.join(":"), folder.scope, read.text, notices);
      if (!agent) continue;
      const first = agents.get(agent.name);
      if (first) {
        if (first.scope !== agent.scope)
          notices.push(`The project agent "${agent.name}" (${file.path}) has the name of one of yours; yours is used.`);
        continue;
      }
      agents.set(agent.name, agent);
    }
  }
  return [...agents.values()];
}

/** The agent's file as it is now: its instructions and the SHA-256 a consent pins. */
export function readAgentBody(agent: AgentDefinition): { body: string; hash: string } | { problem: string } {
  const read = readExtensionFile(agent.path, MAX_AGENT_CHARS);
  if ("problem" in read) return read;
  return { body: parseMarkdown(read.text).body, hash: read.hash };
}
