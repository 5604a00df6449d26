// Images from the editor, end to end in one process (issue 18, item 1): an image block and a
// file:// image link reach the model as image blocks and stay in the session file; an image
// that is not one or is too large, and any image for a text-only model, get a line instead.
// Images together (issue 31, item 6): a prompt whose images, with the conversation's, would pass
// what one request carries is refused before anything reaches the (mock) Messages API, and the
// session file records the refusal.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { garudaPaths } from "../../src/config/paths.ts";
import { FakeModelClient, fake } from "../../src/model/fake.ts";
import { createAnthropicClient } from "../../src/model/anthropic.ts";
import { MAX_IMAGE_BYTES } from "../../src/model/images.ts";
import { messageText, startHarness } from "../support/acpHarness.ts";
import { type MockAnthropic, startMockAnthropic } from "../support/mockAnthropic.ts";

const PNG_1PX = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

/** Every file under a folder, read as text. */
function allText(dir: string): string {
  let out = "";
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    out += statSync(path).isDirectory() ? allText(path) : readFileSync(path, "utf8");
  }
  return out;
}

const imagesOf = (model: FakeModelClient, index = 0) =>
  (model.requests[index]?.messages.findLast((m) => m.role === "user")?.content ?? []).filter(
    (block) => block.type === "image",
  );

describe("images over ACP", () => {
  test("initialize says images are taken", async () => {
    await using h = startHarness();
    expect((await h.initialize()).agentCapabilities?.promptCapabilities?.image).toBe(true);
  });

  test("an image block reaches the model as an image, and the session file keeps it", async () => {
    const model = new FakeModelClient([fake.text("a red pixel")]);
    await using h = startHarness({ models: [model] });
    await h.initialize();
    const { sessionId } = await h.newSession();
    await h.prompt(sessionId, [
      { type: "text", text: "what is this?" },
      { type: "image", data: PNG_1PX, mimeType: "image/png" },
    ]);
    expect(imagesOf(model)).toEqual([{ type: "image", mediaType: "image/png", data: PNG_1PX }]);
    expect(allText(garudaPaths(h.home).sessions)).toContain(PNG_1PX);
  });

  test("a file:// link to an image in the project is sent as the image; an image alone is a prompt", async () => {
    const model = new FakeModelClient([fake.text("ok")]);
    await using h = startHarness({ models: [model] });
    writeFileSync(join(h.root, "shot.png"), Buffer.from(PNG_1PX, "base64"));
    await h.initialize();
    const { sessionId } = await h.newSession();
    await h.prompt(sessionId, [
      { type: "resource_link", name: "shot.png", uri: pathToFileURL(join(h.root, "shot.png")).href },
    ]);
    expect(imagesOf(model)).toEqual([{ type: "image", mediaType: "image/png", data: PNG_1PX }]);
  });

  test(
    "bytes that are no image, and an image over the size limit, are refused with a " + "line; nothing broken is sent",
    async () => {
      const model = new FakeModelClient([fake.text("ok")]);
      await using h = startHarness({ models: [model] });
      await h.initialize();
      const { sessionId } = await h.newSession();
      const big = Buffer.alloc(MAX_IMAGE_BYTES + 10);
      Buffer.from(PNG_1PX, "base64").copy(big);
      await h.prompt(sessionId, [
        { type: "text", text: "look" },
        { type: "image", data: Buffer.from("<svg onload=alert(1)>").toString("base64"), mimeType: "image/png" },
        { type: "image", data: big.toString("base64"), mimeType: "image/png" },
      ]);
      expect(imagesOf(model)).toEqual([]);
      const said = messageText(h.updatesOf(sessionId));
      expect(said).toContain("Image 1 was not sent: it is not a PNG, JPEG, GIF or WebP image.");
      expect(said).toContain("Image 2 was not sent: it is 3.8 MB, and models take images up to 3.75 MB.");
    },
  );

  test("a model the catalog marks as text-only gets no image, and a Garuda: line says why", async () => {
    const model = new FakeModelClient([fake.text("ok")]);
    await using h = startHarness({ models: [model] });
    writeFileSync(
      garudaPaths(h.home).models,
      JSON.stringify({ default: "claude-sonnet-5", models: { "claude-sonnet-5": { images: false } } }),
    );
    await h.initialize();
    const { sessionId } = await h.newSession();
    await h.prompt(sessionId, [
      { type: "text", text: "what is this?" },
      { type: "image", data: PNG_1PX, mimeType: "image/png" },
    ]);
    expect(imagesOf(model)).toEqual([]);
    expect(messageText(h.updatesOf(sessionId))).toContain(
      "Garuda: the image was not sent: claude-sonnet-5 takes text only",
    );
  });
});

/** A PNG (by its first bytes) of `size` bytes, base64, each one different. */
function pngOf(size: number, fill: number): string {
  const bytes = Buffer.alloc(size, fill);
  Buffer.from(PNG_1PX, "base64").copy(bytes);
  return bytes.toString("base64");
}

const imageBlock = (data: string) => ({ type: "image" as const, data, mimeType: "image/png" });
const clientFor = (mock: MockAnthropic) =>
  createAnthropicClient({ apiKey: "sk-ant-test", baseUrl: mock.url, retry: { maxAttempts: 1 } });
/** The images of the request the mock Messages API received. */
const imagesSent = (mock: MockAnthropic, index: number): number =>
  (mock.requests[index]?.body?.messages ?? [])
    .flatMap((m: { content: unknown }) => (Array.isArray(m.content) ? m.content : []))
    .filter((block: { type: string }) => block.type === "image").length;

describe("images bounded per request and per conversation (the real client on the mock Messages API)", () => {
  test("images that with the conversation's would pass 24 MB are refused before " +
    "anything is sent; the session file records it, the session goes on", async () => {
    await using mock = startMockAnthropic({
      script: [{ steps: [{ type: "text", text: "Four seen." }] }, { steps: [{ type: "text", text: "Still four." }] }],
    });
    await using h = startHarness({ client: clientFor(mock) });
    await h.initialize();
    const { sessionId } = await h.newSession();
    // Each image is 3.5 MB, 4.7 MB as sent (base64): within the per-image limit.
    const image = (n: number) => imageBlock(pngOf(3_500_000, n));
    await h.prompt(sessionId, [{ type: "text", text: "four screenshots" }, image(1), image(2), image(3), image(4)]);
    expect(mock.requests).toHaveLength(1);
    expect(imagesSent(mock, 0)).toBe(4);
    // Two more would make every request carry 28 MB of images: refused, nothing sent.
    const refused = await h.prompt(sessionId, [{ type: "text", text: "two more" }, image(5), image(6)]);
    expect(refused.stopReason).toBe("end_turn");
    expect(mock.requests).toHaveLength(1);
    const said = messageText(h.updatesOf(sessionId));
    expect(said).toContain(
      "Garuda: With this prompt, the conversation would send 28.0 MB of images with " +
        "every request, more than the 24.0 MB Garuda sends in one (the provider takes " +
        "32.0 MB in all), so nothing was sent. Start a new session for more images, or " +
        "/compact",
    );
    const file = allText(garudaPaths(h.home).sessions);
    expect(file).toContain(
      '"type":"notice","level":"warning","text":"With this prompt, the conversation would send 28.0 MB',
    );
    expect(file).not.toContain('"prompt":"two more"');
    // The conversation is as it was: the next prompt is sent, with the four images.
    await h.prompt(sessionId, "what did you see?");
    expect(mock.requests).toHaveLength(2);
    expect(imagesSent(mock, 1)).toBe(4);
    expect(messageText(h.updatesOf(sessionId))).toContain("Still four.");
  }, 60_000);

  test("more than 20 images in the conversation are refused the same way; 20 go (negative control)", async () => {
    await using mock = startMockAnthropic({
      script: [{ steps: [{ type: "text", text: "Fifteen." }] }, { steps: [{ type: "text", text: "Twenty." }] }],
    });
    await using h = startHarness({ client: clientFor(mock) });
    await h.initialize();
    const { sessionId } = await h.newSession();
    const tiny = (from: number, count: number) =>
      Array.from({ length: count }, (_, i) => imageBlock(pngOf(100, from + i)));
    await h.prompt(sessionId, [{ type: "text", text: "fifteen" }, ...tiny(0, 15)]);
    await h.prompt(sessionId, [{ type: "text", text: "six more" }, ...tiny(15, 6)]);
    expect(mock.requests).toHaveLength(1);
    expect(messageText(h.updatesOf(sessionId))).toContain(
      "Garuda: With this prompt, the conversation would send 21 images with every " +
        "request, more than the 20 Garuda sends in one, so nothing was sent.",
    );
    expect(allText(garudaPaths(h.home).sessions)).toContain("would send 21 images with every request");
    await h.prompt(sessionId, [{ type: "text", text: "five more" }, ...tiny(15, 5)]);
    expect(mock.requests).toHaveLength(2);
    expect(imagesSent(mock, 1)).toBe(20);
  }, 60_000);
});
