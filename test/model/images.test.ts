// Images for the model: the type comes from the bytes, the size limit holds, and each provider
// gets its own wire form (issue 18, item 1).
import { describe, expect, test } from "bun:test";
import {
  anthropicImage,
  imageFromBase64,
  imageFromBytes,
  imageTypeOf,
  MAX_IMAGE_BYTES,
  openaiImage,
} from "../../src/model/images.ts";
import { toWireRequest } from "../../src/model/anthropicRequest.ts";
import { toOpenAIRequest } from "../../src/model/openaiRequest.ts";
import type { ImageBlock, ModelRequest } from "../../src/model/types.ts";

const PNG_1PX = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

describe("images", () => {
  test("the type is read from the bytes: PNG, JPEG, GIF, WebP; anything else is refused", () => {
    expect(imageTypeOf(Buffer.from(PNG_1PX, "base64"))).toBe("image/png");
    expect(imageTypeOf(Uint8Array.from([0xff, 0xd8, 0xff, 0xe0]))).toBe("image/jpeg");
    expect(imageTypeOf(new TextEncoder().encode("GIF89a"))).toBe("image/gif");
    expect(imageTypeOf(new TextEncoder().encode("RIFF\0\0\0\0WEBPVP8 "))).toBe("image/webp");
    expect(imageFromBytes(new TextEncoder().encode("<svg/>"), "Image 1")).toEqual({
      refused: "Image 1 was not sent: it is not a PNG, JPEG, GIF or WebP image.",
    });
  });

  test("base64 that is not base64 is refused, never decoded to something else", () => {
    expect(imageFromBase64(`${PNG_1PX.slice(0, 20)}!!${PNG_1PX.slice(22)}`, "Image 1")).toEqual({
      refused: "Image 1 was not sent: its data is not valid base64.",
    });
    expect(imageFromBase64(PNG_1PX, "Image 1")).toEqual({
      image: { type: "image", mediaType: "image/png", data: PNG_1PX },
    });
  });

  test("an image over the limit is refused with its size, from bytes and from base64", () => {
    const big = new Uint8Array(MAX_IMAGE_BYTES + 1);
    big.set(Buffer.from(PNG_1PX, "base64").subarray(0, 8));
    expect(imageFromBytes(big, "@shot.png")).toEqual({
      refused:
        "@shot.png was not sent: it is 3.8 MB, and models take images up to 3.75 MB. " +
        "Send a smaller or scaled-down image.",
    });
    expect("refused" in imageFromBase64(Buffer.from(big).toString("base64"), "Image 1")).toBe(true);
    const fits = big.subarray(0, MAX_IMAGE_BYTES);
    expect("image" in imageFromBytes(fits, "x")).toBe(true);
  });

  test("Anthropic gets a base64 image block; OpenAI-compatible servers an image_url data URL after the text", () => {
    const image: ImageBlock = { type: "image", mediaType: "image/png", data: PNG_1PX };
    const request: ModelRequest = {
      model: "m",
      system: "s",
      maxTokens: 10,
      tools: [],
      messages: [{ role: "user", content: [{ type: "text", text: "what is this?" }, image] }],
    };
    const wire = toWireRequest(request);
    expect(wire.messages[0]?.content).toContainEqual(expect.objectContaining(anthropicImage(image)));
    expect(anthropicImage(image)).toEqual({
      type: "image",
      source: { type: "base64", media_type: "image/png", data: PNG_1PX },
    });
    const openai = toOpenAIRequest(request, { textToolCalls: false, includeUsage: false });
    expect(openai.messages.at(-1)).toEqual({
      role: "user",
      content: [{ type: "text", text: "what is this?" }, openaiImage(image)],
    });
    expect(openaiImage(image).image_url.url).toBe(`data:image/png;base64,${PNG_1PX}`);
    const textCalls = toOpenAIRequest(request, { textToolCalls: true, includeUsage: false });
    expect(textCalls.messages.at(-1)).toEqual({
      role: "user",
      content: [{ type: "text", text: "what is this?" }, openaiImage(image)],
    });
  });
});
