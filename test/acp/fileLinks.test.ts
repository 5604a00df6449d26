// The editor's file links (ACP resource_link blocks become @-mentions) to a file that is a secret
// under another name (issue 31.4): a hard link in the project to the home's ~/.ssh/id_rsa is not
// attached, and the user is told why; an ordinary file link beside it is (the negative control).
import { expect, test } from "bun:test";
import { linkSync, mkdirSync, writeFileSync } from "node:fs";
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
