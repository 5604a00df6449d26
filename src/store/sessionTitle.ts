// A session's title: its first prompt as one visible line of at most TITLE_CHARS characters,
// with no extra model request. Line breaks and tabs fold to one blank (a title is not a command,
// so the chat's ↵ marker is not needed); every other hidden character is shown as ⟨U+XXXX⟩.
import { visible } from "../text/visible.ts";
import type { PromptBlock } from "./sessionRecords.ts";

const TITLE_CHARS = 80;

/** The words of a prompt a title reads from: typed text and the names of linked files, not embedded context. */
function words(prompt: readonly PromptBlock[] | string): string {
  if (typeof prompt === "string") return prompt;
  const typed = prompt.flatMap((block) =>
    block.type === "text" ? [block.text] : block.type === "link" ? [block.name] : [],
  );
  return typed.join(" ").trim() !== ""
    ? typed.join(" ")
    : prompt.flatMap((block) => (block.type === "resource" ? [block.uri] : [])).join(" ");
}

/** The title of a session whose first prompt is `prompt`, or undefined when it has no words. */
export function sessionTitle(prompt: readonly PromptBlock[] | string): string | undefined {
  const line = visible(words(prompt).replace(/[ \t\r\n]+/g, " ")).trim();
  if (line === "") return undefined;
  const chars = [...line];
  return chars.length > TITLE_CHARS
    ? `${chars
        .slice(0, TITLE_CHARS - 1)
        .join("")
        .trimEnd()}…`
    : line;
}
