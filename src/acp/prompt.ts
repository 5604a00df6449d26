// The editor's content blocks as Garuda's prompt text: text as typed, a link to a file in the
// project as an @mention (so the mention rules and the permission check apply, as in the
// terminal), anything else as its name and address, and embedded context as a fenced block
// labelled with its URI, like a paste — except a file's. An editor that sees embeddedContext sends
// an @-mentioned file (or a selection in one) as a `resource` with the text it read itself,
// following links on the host: a project path linked to ~/.ssh/id_rsa would send the key. So a
// file:// resource is an @mention of its path, wherever it is (inside the project folders, not a
// secret by name or identity, a file outside asks), and the editor's text is not used: the
// mention reads the file Garuda checked, and asks the editor for its unsaved buffer only through
// the checked path (tools/editorBuffers.ts). A selection says which lines were selected.
import { isAbsolute, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { ContentBlock } from "@agentclientprotocol/sdk";
import { imageFromBase64, MAX_IMAGES } from "../model/images.ts";
import type { ImageBlock } from "../model/types.ts";
import { codeBlock } from "./codeBlock.ts";

/** A file:// URI's absolute path, or undefined for any other address. */
function filePath(uri: string): string | undefined {
  if (!uri.startsWith("file:")) return undefined;
  try {
    const path = fileURLToPath(uri);
    return isAbsolute(path) ? path : undefined;
  } catch {
    return undefined;
  }
}

/** `@path`, quoted when the path has a character that would end an unquoted mention (runtime/mentions.ts). */
function at(path: string): string {
  return /[\s"'`<>()[\]{}]/.test(path) ? `@"${path.replace(/["\\]/g, "\\$&")}"` : `@${path}`;
}

/** `@path` for a path inside the root, else undefined. */
function mention(path: string, root: string): string | undefined {
  const rel = relative(root, path);
  if (rel === "" || rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return undefined;
  return at(rel.split(sep).join("/"));
}

/** The lines a selection's URI names (`#L10:20`, `#L10-L20`, `#L7`), as words; "" for anything else. */
function selectedLines(uri: string): string {
  const match = /#L(\d+)(?:[:-]L?(\d+))?$/.exec(uri);
  if (!match) return "";
  const [, from, to] = match;
  return to === undefined || to === from
    ? ` (line ${from} selected in the editor)`
    : ` (lines ${from}-${to} selected in the editor)`;
}

type Piece = { text: string; block: boolean };

function piece(block: ContentBlock, root: string): Piece {
  switch (block.type) {
    case "text":
      return { text: block.text, block: false };
    case "resource_link": {
      const path = filePath(block.uri);
      const linked = path === undefined ? undefined : mention(path, root);
      if (linked !== undefined) return { text: linked, block: false };
      return {
        text: block.name && block.name !== block.uri ? `${block.name} (${block.uri})` : block.uri,
        block: false,
      };
    }
    case "resource": {
      const resource = block.resource;
      const path = filePath(resource.uri);
      // The file checked and read by Garuda, not the editor's copy (see the header).
      if (path !== undefined && "text" in resource)
        return { text: `${mention(path, root) ?? at(path)}${selectedLines(resource.uri)}`, block: false };
      if ("text" in resource) return { text: codeBlock(resource.text, resource.uri), block: true };
      return { text: `[${resource.uri}: binary content, not included]`, block: false };
    }
    case "image":
      // Sent as an image of its own (promptImages); a file:// image link is a mention, above.
      return { text: "", block: false };
    case "audio":
      return { text: "[audio, not included: Garuda takes no audio in this version]", block: false };
  }
}

/**
 * The prompt text of `blocks`. Inline pieces are joined with a blank where the editor left none
 * between them; fenced blocks stand on lines of their own.
 */
export function promptText(blocks: readonly ContentBlock[], root: string): string {
  let out = "";
  for (const next of blocks.map((block) => piece(block, root))) {
    if (next.text === "") continue;
    if (out === "") {
      out = next.text;
    } else if (next.block) {
      out += `${out.endsWith("\n\n") ? "" : out.endsWith("\n") ? "\n" : "\n\n"}${next.text}\n\n`;
    } else {
      out += /\s$/.test(out) || /^\s/.test(next.text) ? next.text : ` ${next.text}`;
    }
    if (next.block && !out.endsWith("\n\n")) out += "\n\n";
  }
  return out.trim() === "" ? out : out.replace(/\s+$/, "");
}

/**
 * The editor's image blocks as checked images for the model (PNG, JPEG, GIF, WebP within the
 * size limit: model/images.ts), and a line for each one refused.
 */
export function promptImages(blocks: readonly ContentBlock[]): { images: ImageBlock[]; refused: string[] } {
  const images: ImageBlock[] = [];
  const refused: string[] = [];
  let count = 0;
  for (const block of blocks) {
    if (block.type !== "image") continue;
    count += 1;
    const name = `Image ${count}`;
    if (images.length >= MAX_IMAGES) {
      refused.push(`${name} was not sent: a prompt takes at most ${MAX_IMAGES} images.`);
      continue;
    }
    const checked = imageFromBase64(block.data, name);
    if ("image" in checked) images.push(checked.image);
    else refused.push(checked.refused);
  }
  return { images, refused };
}
