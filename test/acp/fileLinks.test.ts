// The editor's file links (ACP resource_link blocks become @-mentions) to a file that is a secret
// under another name (issue 31.4): a hard link in the project to the home's ~/.ssh/id_rsa is not
// attached, and the user is told why; an ordinary file link beside it is (the negative control).
// And the editor's embedded files: an editor that sees embeddedContext sends an @-mentioned file
// as a `resource` with the text it read itself, following links on the host. Such a file goes
// through the same checks as a file link, and the editor's copy is not what is sent.
import { expect, test } from "bun:test";
import { linkSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { FakeModelClient, fake } from "../../src/model/fake.ts";
import { startHarness } from "../support/acpHarness.ts";

const KEY_LINE = "fake-ssh-key-of-the-test-home-31d4-acp";

test("a file link to a hard link of ~/.ssh/id_rsa is not attached; a plain file link is", async () => {
  const model = new FakeModelClient([fake.text("ok")]);
  await using h = startHarness({ models: [model], files: { "plain.txt": "plain text\n" } });
  mkdirSync(join(h.home, ".ssh"), { recursive: true, mode: 0o700 });
  writeFileSync(join(h.home, ".ssh", "id_rsa"), `${KEY_LINE}\n`, { mode: 0o600 });
  linkSync(join(h.home, ".ssh", "id_rsa"), join(h.root, "notes.txt"));
  await h.initialize();
  const { sessionId } = await h.newSession();
  const link = (name: string) => ({
    type: "resource_link" as const,
    name,
    uri: pathToFileURL(join(h.root, name)).href,
  });
  await h.prompt(sessionId, [{ type: "text", text: "look at" }, link("notes.txt"), link("plain.txt")]);
  const sent = JSON.stringify(model.requests);
  expect(sent).not.toContain(KEY_LINE);
  expect(sent).toContain("plain text");
  const shown = JSON.stringify(h.updatesOf(sessionId));
  expect(shown).not.toContain(KEY_LINE);
  expect(shown).toContain("notes.txt is the same file as ~/.ssh/id_rsa");
});

test(
  "an embedded file whose project path links to ~/.ssh/id_rsa is not sent (the " +
    "editor's copy neither); a plain embedded file is, from disk",
  async () => {
    const model = new FakeModelClient([fake.text("ok")]);
    await using h = startHarness({ models: [model], files: { "plain.md": "plain text on disk\n" } });
    mkdirSync(join(h.home, ".ssh"), { recursive: true, mode: 0o700 });
    writeFileSync(join(h.home, ".ssh", "id_rsa"), `${KEY_LINE}\n`, { mode: 0o600 });
    mkdirSync(join(h.root, "docs"));
    // In a cloned repository: a symlink out of the project, to the key.
    symlinkSync(join(h.home, ".ssh", "id_rsa"), join(h.root, "docs", "notes.md"));
    await h.initialize();
    const { sessionId } = await h.newSession();
    const embedded = (name: string, text: string) => ({
      type: "resource" as const,
      resource: { uri: pathToFileURL(join(h.root, name)).href, text, mimeType: "text/markdown" },
    });
    // What the editor sends for "@docs/notes.md": the text as it read it, links followed.
    await h.prompt(sessionId, [
      { type: "text", text: "summarize" },
      embedded("docs/notes.md", readFileSync(join(h.root, "docs", "notes.md"), "utf8")),
      embedded("plain.md", "THE EDITOR'S OWN COPY"),
    ]);
    const sent = JSON.stringify(model.requests);
    expect(sent).not.toContain(KEY_LINE);
    expect(sent).toContain("plain text on disk");
    expect(sent).not.toContain("THE EDITOR'S OWN COPY");
    const shown = JSON.stringify(h.updatesOf(sessionId));
    expect(shown).toContain("@docs/notes.md was not attached");
  },
);
