// Images in a user message: what Garuda accepts (PNG, JPEG, GIF, WebP, checked by their first
// bytes, not by what the sender says they are), the providers' size limits, and each provider's
// wire form. An image that is not one of these, or is larger than the provider takes, is
// refused with a line for the user; nothing broken or oversized is ever sent.
import type { ImageBlock } from "./types.ts";

export type ImageMediaType = ImageBlock["mediaType"];

/**
 * The largest image sent, decoded: Anthropic's API takes 5 MB per image as it is sent, base64,
 * which is a third larger than the image (3.75 MB); OpenAI-compatible servers vary, and this is
 * inside what the common ones take. Images together are bounded per request (requestBound.ts).
 */
export const MAX_IMAGE_BYTES = (5 * 1024 * 1024 * 3) / 4;
/** At most this many images in one prompt (and in one request: requestBound.ts). */
export const MAX_IMAGES = 20;

const SIGNATURES: Array<{ type: ImageMediaType; test: (b: Uint8Array) => boolean }> = [
  { type: "image/png", test: (b) => b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47 },
  { type: "image/jpeg", test: (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff },
  { type: "image/gif", test: (b) => b[0] === 0x47 && b[1] === 0x49 && b[2] === 0x46 && b[3] === 0x38 },
  {
    type: "image/webp",
    test: (b) =>
      String.fromCharCode(...b.subarray(0, 4)) === "RIFF" && String.fromCharCode(...b.subarray(8, 12)) === "WEBP",
  },
];

/** The image type of these bytes, by their signature; undefined for anything else. */
export function imageTypeOf(bytes: Uint8Array): ImageMediaType | undefined {
  return SIGNATURES.find((signature) => signature.test(bytes))?.type;
}

/** File names Garuda treats as images (an @-mention of one attaches it as an image). */
export const IMAGE_EXTENSION = /\.(png|jpe?g|gif|webp)$/i;

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** The refusal of an image of `bytes` bytes, over MAX_IMAGE_BYTES. */
export const tooLarge = (name: string, bytes: number) =>
  `${name} was not sent: it is ${(bytes / 1024 / 1024).toFixed(1)} MB, and models ` +
  `take images up to ${MAX_IMAGE_BYTES / 1024 / 1024} MB. Send a smaller or ` +
  `scaled-down image.`;

/** An image block from its bytes, or the reason it cannot be sent (`name` says which image). */
export function imageFromBytes(bytes: Uint8Array, name: string): { image: ImageBlock } | { refused: string } {
  const mediaType = imageTypeOf(bytes);
  if (!mediaType) return { refused: `${name} was not sent: it is not a PNG, JPEG, GIF or WebP image.` };
  if (bytes.length > MAX_IMAGE_BYTES) return { refused: tooLarge(name, bytes.length) };
  return { image: { type: "image", mediaType, data: Buffer.from(bytes).toString("base64") } };
}

/** An image block from base64 data (an editor's image block), or the reason it cannot be sent. */
export function imageFromBase64(data: string, name: string): { image: ImageBlock } | { refused: string } {
  const compact = data.replace(/\s+/g, "");
  // Checked before decoding: a decoder skips what is not base64, which would send a different image.
  if (!BASE64.test(compact) || compact.length % 4 !== 0)
    return { refused: `${name} was not sent: its data is not valid base64.` };
  const size = (compact.length / 4) * 3 - (compact.endsWith("==") ? 2 : compact.endsWith("=") ? 1 : 0);
  if (size > MAX_IMAGE_BYTES) return { refused: tooLarge(name, size) };
  return imageFromBytes(Buffer.from(compact, "base64"), name);
}

/** The line a text-only model's user gets instead of the image. */
export function textOnlyNotice(count: number, model: string): string {
  return (
    `Garuda: ${count === 1 ? "the image was" : `${count} images were`} not sent: ` +
    `${model} takes text only (the model catalog marks it so). Describe the image ` +
    `in words, or switch to a model that takes images.`
  );
}

/** Anthropic's image block. */
export function anthropicImage(block: ImageBlock): {
  type: "image";
  source: { type: "base64"; media_type: ImageMediaType; data: string };
} {
  return { type: "image", source: { type: "base64", media_type: block.mediaType, data: block.data } };
}

/** An OpenAI-compatible image_url part (a data URL). */
export function openaiImage(block: ImageBlock): { type: "image_url"; image_url: { url: string } } {
  return { type: "image_url", image_url: { url: `data:${block.mediaType};base64,${block.data}` } };
}
