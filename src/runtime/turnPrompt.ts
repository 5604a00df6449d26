// A turn's prompt on its way to the model: a deferred /command expanded (it may refuse), then
// the user message built: Garuda's notes, the prompt, the @-mentioned files and the images (none
// for a text-only model, and the user is told), checked against the model's context window.
// The Runtime awaits the slow parts itself (the expansion, the mentions) and only when there is
// something to wait for, so a turn with neither reaches its record as soon as it did before.
import type { EventSink, StopReason } from "../core-types/events.ts";
import type { ModelInfo } from "../model/catalog.ts";
import { textOnlyNotice } from "../model/images.ts";
import type { ImageBlock, Message, UserBlock } from "../model/types.ts";
import type { AuditSink } from "../store/auditEvents.ts";
import type { deferredCommand } from "./commands.ts";
import type { Attachments } from "./mentions.ts";
import { userContent } from "./notes.ts";
import { imagesProblem, promptProblem } from "./promptBound.ts";

type Deferred = NonNullable<ReturnType<typeof deferredCommand>>;

/**
 * The prompt a deferred command (a skill or a prompt file, expanded at the turn) makes. A
 * refusal is shown and ends the turn ("done"); a cancel while it expands ends it as "cancelled".
 */
export async function expandDeferred(
  deferred: Deferred,
  ctx: { signal: AbortSignal; emit: EventSink; audit: AuditSink | undefined },
): Promise<{ prompt: string } | { stop: StopReason }> {
  const made = await deferred.command.expand(ctx.signal);
  if (ctx.signal.aborted) return { stop: "cancelled" };
  if ("refused" in made) {
    ctx.emit({ type: "notice", level: "warning", text: made.refused, refusedCommand: deferred.name });
    ctx.audit?.record({ type: "notice", text: made.refused });
    return { stop: "done" };
  }
  return { prompt: made.text };
}

/** Whether the model takes images: a model the catalog marks as text-only gets none (images.ts). */
export const takesImages = (model: ModelInfo): boolean => model.images !== false;

/**
 * The user message's blocks, or why none goes out: there is nothing to send, or it is too large
 * for the model or for one request (the user is told; `refusal` is what they were told).
 */
export type PromptContent = { content: UserBlock[] } | { unsent: "empty" } | { unsent: "too_large"; refusal: string };

/**
 * The user message of `prompt` with its notes, the attached files and the images (the mentions' own notices are shown
 * already).
 */
export function promptContent(
  prompt: string,
  input: {
    notes: readonly string[];
    attached: Attachments;
    images: readonly ImageBlock[];
    model: ModelInfo;
    emit: EventSink;
    /** The conversation so far: its images go with this one's in every request. */
    conversation: readonly Message[];
  },
): PromptContent {
  const { attached, emit, images, model } = input;
  const withImages = takesImages(model);
  if (!withImages && images.length > 0)
    emit({ type: "notice", level: "warning", text: textOnlyNotice(images.length, model.spec) });
  // A prompt of images alone has no text block (the API refuses an empty one).
  const content = [
    ...userContent(prompt, input.notes).filter((block) => block.type !== "text" || block.text !== ""),
    ...attached.blocks,
    ...(withImages ? images : []),
  ];
  if (content.length === 0) return { unsent: "empty" };
  const tooLarge =
    promptProblem(content, model.contextWindow, attached.blocks.length > 0) ??
    imagesProblem(input.conversation, content);
  if (tooLarge !== undefined) {
    emit({ type: "notice", level: "warning", text: tooLarge, refusedPrompt: true });
    return { unsent: "too_large", refusal: tooLarge };
  }
  return { content };
}
