// What one model request may carry in all. Every image of the conversation goes again with every
// request, so images bounded one by one (images.ts) still add up past what the provider takes:
// Anthropic's Messages API refuses a request over 32 MB (HTTP 413), and one with more than 20
// images when any of them is over 2000×2000 px (Garuda does not measure images, so it sends at
// most 20). A refused request would fail again with every later request of the session. So a
// prompt whose images would pass these bounds is refused before it joins the conversation
// (runtime/promptBound.ts), and each client checks the request it is about to send
// (anthropic.ts, openaiCompatible.ts), whatever the conversation holds (a resumed session, a
// switch to another model). OpenAI-compatible servers get the same bounds: OpenAI documents
// more (50 MB, 500 images), local servers vary, and these are within what the common ones take.
// Text needs no bound of its own here: the context window bounds it (promptBound.ts, compaction).
import type { Message, UserBlock } from "./types.ts";

/** Anthropic's request size limit for the Messages API (32 MB). */
export const MAX_REQUEST_BYTES = 32_000_000;
/** The most images in one request (the images of every message in it). */
export const MAX_REQUEST_IMAGES = 20;
/**
 * The most base64 image data in one request: the rest of the 32 MB is left to the conversation's
 * text, the system prompt and the tools, so a prompt that passes here is never refused by the
 * client's check of the whole request.
 */
export const MAX_REQUEST_IMAGE_BYTES = 24_000_000;

/** The images of a request: how many, and their base64 data's size in bytes. */
export interface ImageLoad {
  count: number;
  bytes: number;
}

/** The images in these messages (or a user message's blocks). */
export function imageLoad(messages: readonly (Message | UserBlock)[]): ImageLoad {
  const load = { count: 0, bytes: 0 };
  const add = (block: { type: string; data?: string }) => {
    if (block.type !== "image") return;
    load.count += 1;
    load.bytes += block.data?.length ?? 0;
  };
  for (const item of messages) {
    if ("role" in item) for (const block of item.content) add(block as { type: string; data?: string });
    else add(item as { type: string; data?: string });
  }
  return load;
}

const mb = (bytes: number) => `${(bytes / 1_000_000).toFixed(1)} MB`;

const WHAT_TO_DO =
  "Start a new session for more images, or /compact (the summary replaces older turns and their images), " +
  "and send fewer or smaller images.";

/**
 * Why images of `load` cannot go in one request, or undefined when they fit. `prompt`: the load
 * holds a new prompt's images (it is refused, not the conversation).
 */
export function imageLoadProblem(load: ImageLoad, prompt: boolean): string | undefined {
  const subject = prompt ? "With this prompt, the conversation" : "The conversation";
  if (load.count > MAX_REQUEST_IMAGES)
    return (
      `${subject} would send ${load.count} images with every request, more than the ` +
      `${MAX_REQUEST_IMAGES} Garuda sends in one, so nothing was sent. ${WHAT_TO_DO}`
    );
  if (load.bytes > MAX_REQUEST_IMAGE_BYTES)
    return (
      `${subject} would send ${mb(load.bytes)} of images with every request, more ` +
      `than the ${mb(MAX_REQUEST_IMAGE_BYTES)} Garuda sends in one (the provider ` +
      `takes ${mb(MAX_REQUEST_BYTES)} in all), so nothing was sent. ${WHAT_TO_DO}`
    );
  return undefined;
}

/** Why a request body of `bytes` bytes with these images is not sent to `provider`, or undefined when it fits. */
export function requestProblem(bytes: number, images: ImageLoad, provider: string): string | undefined {
  const tooMany = imageLoadProblem(images, false);
  if (tooMany !== undefined) return tooMany;
  if (bytes > MAX_REQUEST_BYTES)
    return (
      `The request would be ${mb(bytes)}, more than the ${mb(MAX_REQUEST_BYTES)} ` +
      `${provider} takes in one, so nothing was sent. ${WHAT_TO_DO}`
    );
  return undefined;
}

/**
 * The check a client makes before it sends `messages`: `body` (the wire request) is serialized
 * and measured only when they hold images; a text-only request is bounded by the context window.
 */
export function sendProblem(messages: readonly Message[], body: () => unknown, provider: string): string | undefined {
  const images = imageLoad(messages);
  if (images.count === 0) return undefined;
  return requestProblem(Buffer.byteLength(JSON.stringify(body())), images, provider);
}
