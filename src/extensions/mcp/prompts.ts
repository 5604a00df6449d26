// MCP prompts as `/server:prompt args` commands. Words of `args` (quotes group them) fill the
// prompt's arguments in order, the last one taking the rest; the server's messages become the
// prompt for the model. They expand in the turn, once the server runs.
import type { GetPromptResult, Prompt } from "@modelcontextprotocol/sdk/types.js";
import type { CommandInfo } from "../../runtime/services.ts";
import { cleanText } from "../clean.ts";
import { splitArguments } from "../expand.ts";

const MAX_PROMPT_CHARS = 50_000;

/** A prompt's name as a command part (lower case, [a-z0-9_-]); undefined when nothing is left. */
export function promptCommandName(name: string): string | undefined {
  const part = name
    .toLowerCase()
    .replace(/[^a-z0-9_-]/g, "_")
    .replace(/^[_-]+/, "")
    .slice(0, 64);
  return part.length > 0 ? part : undefined;
}

export function promptInfo(server: string, prompt: Prompt): CommandInfo | undefined {
  const part = promptCommandName(prompt.name);
  if (part === undefined) return undefined;
  const hint = (prompt.arguments ?? []).map((arg) => (arg.required ? `<${arg.name}>` : `[${arg.name}]`)).join(" ");
  return {
    name: `${server}:${part}`,
    description: prompt.description ?? prompt.title ?? `Prompt "${prompt.name}" of the MCP server ${server}`,
    ...(hint && { argumentHint: hint }),
  };
}

/** The prompt's arguments from the typed text, or the problem (a required one missing). */
export function promptArguments(
  prompt: Prompt,
  args: string,
): { values: Record<string, string> } | { problem: string } {
  const declared = prompt.arguments ?? [];
  const words = splitArguments(args);
  const values: Record<string, string> = {};
  declared.forEach((arg, index) => {
    const value = index === declared.length - 1 ? words.slice(index).join(" ") : words[index];
    if (value !== undefined && value !== "") values[arg.name] = value;
  });
  const missing = declared.filter((arg) => arg.required && values[arg.name] === undefined).map((arg) => arg.name);
  if (missing.length > 0)
    return {
      problem:
        `it needs ${missing.join(", ")} (arguments: ` +
        `${declared.map((a) => (a.required ? `<${a.name}>` : `[${a.name}]`)).join(" ")})`,
    };
  return { values };
}

/** The server's messages as one prompt text. */
export function promptText(result: GetPromptResult): string {
  const parts = result.messages.map((message) => {
    const content = message.content;
    if (content.type === "text") return content.text;
    if (content.type === "resource" && "text" in content.resource && typeof content.resource.text === "string")
      return content.resource.text;
    return `[${content.type} content: not shown]`;
  });
  return cleanText(parts.join("\n\n"), MAX_PROMPT_CHARS);
}
