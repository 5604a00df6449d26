// Images from the editor, end to end in one process (issue 18, item 1): an image block and a
// file:// image link reach the model as image blocks and stay in the session file; an image
// that is not one or is too large, and any image for a text-only model, get a line instead.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { garudaPaths } from "../../src/config/paths.ts";
import { FakeModelClient, fake } from "../../src/model/fake.ts";
import { MAX_IMAGE_BYTES } from "../../src/model/images.ts";
import { messageText, startHarness } from "../support/acpHarness.ts";

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

  test("bytes that are no image, and an image over the size limit, are refused with a line; nothing broken is sent", async () => {
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
    expect(said).toContain("Image 2 was not sent: it is 5.0 MB, and models take images up to 5 MB.");
  });

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
