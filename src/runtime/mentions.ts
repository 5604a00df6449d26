// `@path` in a prompt attaches that file for the model, through the same permission check as
// read_file: a sensitive or denied file is not attached (the user is told why), and a file
// outside the project asks first. ACP turns the editor's file links into such mentions.
import { statSync } from "node:fs";
import { IMAGE_EXTENSION, imageFromBytes, MAX_IMAGE_BYTES, tooLarge } from "../model/images.ts";
import type { ImageBlock, TextBlock } from "../model/types.ts";
import type { PermissionEngine } from "../permission/engine.ts";
import type { Approver } from "../permission/types.ts";
import type { Mode } from "../core-types/mode.ts";
import { shownSecret } from "../files/secrets.ts";
import { gainedLinks, loadChecked } from "../tools/checkedFile.ts";
import { type BufferDeps, bufferChangedNote, bufferNote, unsavedBuffer } from "../tools/editorBuffers.ts";
import { pathTarget, resolveToolPath } from "../tools/paths.ts";

/** A mention: `@src/a.ts` or `@"path with blanks"`; trailing punctuation is not part of it. */
const MENTION = /(?<![\w@])@(?:"((?:[^"\\]|\\.)+)"|([^\s"'`<>()[\]{}]+))/g;
const MAX_ATTACHED_BYTES = 200_000;
const MAX_MENTIONS = 10;

export interface MentionContext {
  root: string;
  home: string;
  engine: PermissionEngine;
  mode: Mode;
  approver?: Approver;
  signal: AbortSignal;
  /** false: the model takes text only, so an image file is not attached (the user is told, naming `model`). */
  images?: boolean;
  /** The model's name, for the line that says it takes text only. */
  model?: string;
  /** The editor's unsaved buffers, with the file tools' withheld paths and extra roots (tools/editorBuffers.ts). */
  buffers?: BufferDeps;
}

export interface Attachments {
  blocks: Array<TextBlock | ImageBlock>;
  notices: string[];
}

const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})/;

/**
 * The prompt with the lines inside fenced code blocks blanked: pasted code and the editor's
 * embedded files (ACP sends them fenced) are text, not mentions, so `@decorator`, `@types/node`
 * or an `@path` inside a file the editor sent along attaches nothing.
 */
function outsideFences(prompt: string): string {
  const lines = prompt.split("\n");
  let fence: string | undefined;
  return lines
    .map((line) => {
      if (fence === undefined) {
        const open = FENCE_OPEN.exec(line);
        if (!open) return line;
        fence = open[1] as string;
        return "";
      }
      const close = new RegExp(`^ {0,3}${fence[0] === "`" ? "`" : "~"}{${fence.length},}\\s*$`);
      if (close.test(line)) fence = undefined;
      return "";
    })
    .join("\n");
}

/** A mention written as a file name: a path from ., .. or ~, or a name with an extension (a.txt, src/b.ts). */
function looksLikeFile(mention: string): boolean {
  return /^(?:\.{1,2}|~)?\//.test(mention) || /\.[A-Za-z][A-Za-z0-9]{0,9}$/.test(mention);
}

/** The paths a prompt mentions outside fenced code blocks, in order, without duplicates. */
export function mentionedPaths(prompt: string): string[] {
  const paths: string[] = [];
  for (const match of outsideFences(prompt).matchAll(MENTION)) {
    const raw = match[1] !== undefined ? match[1].replace(/\\(.)/g, "$1") : (match[2] ?? "").replace(/[.,;:!?]+$/, "");
    if (raw && !paths.includes(raw)) paths.push(raw);
  }
  return paths;
}

/** The checked image file as an image block, or why not. */
function attachImage(realPath: string, links: number, name: string): { image: ImageBlock } | { refused: string } {
  const loaded = loadChecked(realPath, MAX_IMAGE_BYTES);
  if (gainedLinks(loaded, links) || loaded.kind === "changed")
    return { refused: `${name} was not attached: it changed while waiting for the approval.` };
  if (loaded.kind === "too_big") return { refused: tooLarge(name, loaded.size) };
  if (loaded.kind === "binary" && loaded.bytes) return imageFromBytes(loaded.bytes, name);
  if (loaded.kind === "text") return imageFromBytes(loaded.bytes, name);
  return { refused: `${name} was not attached: it is not a readable file.` };
}

/** Reads each mentioned file that exists and may be read; says why the others were not attached. */
export async function attachMentions(prompt: string, ctx: MentionContext): Promise<Attachments> {
  const blocks: Array<TextBlock | ImageBlock> = [];
  const notices: string[] = [];
  for (const mention of mentionedPaths(prompt).slice(0, MAX_MENTIONS)) {
    const resolved = resolveToolPath(mention, ctx.root, ctx.home);
    let size: number;
    try {
      const stat = statSync(resolved.realPath);
      if (stat.isDirectory()) continue;
      if (!stat.isFile()) {
        // A pipe, socket or device: reading one can hang (a FIFO waits for a writer).
        notices.push(`@${mention} was not attached: it is not a regular file (a pipe, socket or device).`);
        continue;
      }
      size = stat.size;
    } catch {
      // "@someone" in ordinary text stays text; what is written as a file name was meant as one.
      if (looksLikeFile(mention))
        notices.push(`@${mention} was not attached: there is no such file (${resolved.display}).`);
      continue;
    }
    const decision = await ctx.engine.authorize(
      {
        tool: "read_file",
        readOnly: true,
        // With the file's number of names: a hard-linked file is asked about (another name may be a secret).
        target: pathTarget(resolved, "read"),
        title: `Read ${resolved.display}`,
        preview: `Attach ${resolved.display} to the prompt (mentioned as @${mention}).`,
      },
      { mode: ctx.mode, ...(ctx.approver && { approver: ctx.approver }), signal: ctx.signal },
    );
    if (decision.outcome !== "allow") {
      notices.push(`@${mention} was not attached: ${decision.outcome === "deny" ? decision.reason : "not allowed"}`);
      continue;
    }
    // An image (by its name; its bytes decide) goes as an image, within the models' own limit.
    if (IMAGE_EXTENSION.test(resolved.realPath) && ctx.images === false) {
      notices.push(
        `@${mention} was not attached: ${ctx.model ?? "the model"} takes text only (the ` +
          `model catalog marks it so). Describe the image in words, or switch to a model ` +
          `that takes images (/model).`,
      );
      continue;
    }
    if (IMAGE_EXTENSION.test(resolved.realPath)) {
      const image = attachImage(resolved.realPath, resolved.links, `@${mention}`);
      if ("image" in image) blocks.push(image.image);
      else notices.push(image.refused);
      continue;
    }
    if (size > MAX_ATTACHED_BYTES) {
      notices.push(
        `@${mention} was not attached: it is larger than ${MAX_ATTACHED_BYTES / 1000} ` +
          `KB (the model can read parts of it with read_file).`,
      );
      continue;
    }
    // Read only the file that was checked: a question can wait, and meanwhile a sandboxed process
    // could swap the path for a link to something else (checkedFile.ts).
    const loaded = loadChecked(resolved.realPath, MAX_ATTACHED_BYTES);
    if (gainedLinks(loaded, resolved.links)) {
      notices.push(`@${mention} was not attached: it changed while waiting for the approval (it has other names now).`);
      continue;
    }
    if (loaded.kind !== "text") {
      const why =
        loaded.kind === "changed"
          ? "it changed while waiting for the approval"
          : loaded.kind === "binary"
            ? "it is a binary file"
            : loaded.kind === "too_big"
              ? `it is larger than ${MAX_ATTACHED_BYTES / 1000} KB`
              : "it is not a readable file";
      notices.push(`@${mention} was not attached: ${why}.`);
      continue;
    }
    // The file read (its fstat), not the path checked: during a question the path can become a
    // hard link of a secret that has as many names as the file asked about (as read_file checks).
    const twin = await ctx.engine.secretTwinOf(loaded);
    if (twin !== undefined) {
      notices.push(
        `@${mention} was not attached: it is the same file as ` +
          `${shownSecret(twin, ctx.home)} (a hard link or a mount of it), which may hold ` +
          `secrets.`,
      );
      continue;
    }
    // After the checks above, and only then: the editor's buffer, when it differs from the disk and
    // the path stayed the file just read while the editor was asked (editorBuffers.ts).
    const answer = ctx.buffers
      ? await unsavedBuffer(ctx.buffers, resolved, { realPath: resolved.realPath, identity: loaded }, loaded.text, {
          root: ctx.root,
          signal: ctx.signal,
        })
      : undefined;
    const buffer = answer !== undefined && "unsaved" in answer ? answer.unsaved : undefined;
    const text =
      buffer !== undefined && buffer.length <= MAX_ATTACHED_BYTES
        ? `${buffer}\n${bufferNote(resolved.display)}`
        : answer !== undefined && "changed" in answer
          ? `${loaded.text}\n${bufferChangedNote(resolved.display)}`
          : loaded.text;
    blocks.push({ type: "text", text: `<attached_file path="${resolved.display}">\n${text}\n</attached_file>` });
  }
  return { blocks, notices };
}
