// The editor's unsaved buffers over fs/read_text_file, end to end in one process: a client
// whose buffers differ from the disk, the real file tools, permission engine and mentions
// (issue 18, item 3), and the paths that must never reach the editor (item 7).
import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, realpathSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type * as acp from "@agentclientprotocol/sdk";
import { FakeModelClient, fake } from "../../src/model/fake.ts";
import { contentText, ofKind, startHarness } from "../support/acpHarness.ts";
import { tempDir } from "../support/tempDir.ts";

const FS = { fs: { readTextFile: true } } satisfies acp.ClientCapabilities;

function resultOf(updates: readonly acp.SessionUpdate[], id: string): string {
  return contentText(
    ofKind(updates, "tool_call_update").find(
      (u) => u.toolCallId === id && (u.status === "completed" || u.status === "failed"),
    )?.content,
  );
}

/** The text of the last user message of a model request. */
function userText(model: FakeModelClient, index: number): string {
  const user = model.requests[index]?.messages.findLast((m) => m.role === "user");
  return (user?.content ?? []).map((block) => (block.type === "text" ? block.text : "")).join("\n");
}

/** An editor whose buffer of notes.txt holds unsaved text. */
const unsaved = (params: acp.ReadTextFileRequest): acp.ReadTextFileResponse => ({
  content: params.path.endsWith("notes.txt") ? "unsaved text in the editor\n" : readFileSync(params.path, "utf8"),
});

describe("unsaved buffers", () => {
  test("read_file gives the editor's buffer when it differs from the disk, and says so", async () => {
    const model = new FakeModelClient([
      fake.toolCall("read_file", { path: "notes.txt" }, { id: "toolu_read" }),
      fake.text("ok"),
    ]);
    await using h = startHarness({
      models: [model],
      files: { "notes.txt": "saved text on disk\n" },
      readTextFile: unsaved,
    });
    await h.initialize(FS);
    const { sessionId } = await h.newSession();
    await h.prompt(sessionId, "read it");
    const result = resultOf(h.updatesOf(sessionId), "toolu_read");
    expect(result).toContain("unsaved text in the editor");
    expect(result).not.toContain("saved text on disk");
    expect(result).toContain("This is the editor's unsaved buffer of notes.txt; the file on disk differs");
    expect(h.textFileReads).toEqual([{ sessionId, path: join(realpathSync(h.root), "notes.txt") }]);
  });

  test("negative control: a client without fs.readTextFile is never asked, and the disk is read", async () => {
    const model = new FakeModelClient([
      fake.toolCall("read_file", { path: "notes.txt" }, { id: "toolu_read" }),
      fake.text("ok"),
    ]);
    await using h = startHarness({
      models: [model],
      files: { "notes.txt": "saved text on disk\n" },
      readTextFile: unsaved,
    });
    await h.initialize();
    const { sessionId } = await h.newSession();
    await h.prompt(sessionId, "read it");
    expect(resultOf(h.updatesOf(sessionId), "toolu_read")).toContain("saved text on disk");
    expect(h.textFileReads).toEqual([]);
  });

  test(
    "a buffer the same as the disk is not called unsaved; an editor that fails or " +
      "never answers falls back to the disk",
    async () => {
      const model = new FakeModelClient([
        fake.toolCall("read_file", { path: "same.txt" }, { id: "toolu_same" }),
        fake.toolCall("read_file", { path: "slow.txt" }, { id: "toolu_slow" }),
        fake.toolCall("read_file", { path: "fails.txt" }, { id: "toolu_fails" }),
        fake.text("ok"),
      ]);
      const answer = (params: acp.ReadTextFileRequest): Promise<acp.ReadTextFileResponse> => {
        if (params.path.endsWith("slow.txt")) return new Promise(() => {}); // never answers
        if (params.path.endsWith("fails.txt")) return Promise.reject(new Error("no buffer"));
        return Promise.resolve({ content: readFileSync(params.path, "utf8") });
      };
      await using h = startHarness({
        models: [model],
        files: { "same.txt": "same\n", "slow.txt": "slow on disk\n", "fails.txt": "fails on disk\n" },
        readTextFile: answer,
      });
      await h.initialize(FS);
      const { sessionId } = await h.newSession();
      const started = Date.now();
      await h.prompt(sessionId, "read them");
      const updates = h.updatesOf(sessionId);
      expect(resultOf(updates, "toolu_same")).not.toContain("unsaved buffer");
      expect(resultOf(updates, "toolu_slow")).toContain("slow on disk");
      expect(resultOf(updates, "toolu_fails")).toContain("fails on disk");
      expect(Date.now() - started).toBeLessThan(15_000);
    },
  );

  test(
    "an edit of a file whose buffer differs from the disk is refused with 'ask the " +
      "user to save'; the disk is unchanged",
    async () => {
      const model = new FakeModelClient([
        fake.toolCall("read_file", { path: "notes.txt" }),
        fake.toolCall(
          "edit_file",
          { path: "notes.txt", old_string: "saved", new_string: "edited" },
          { id: "toolu_edit" },
        ),
        fake.toolCall("write_file", { path: "notes.txt", content: "replaced\n" }, { id: "toolu_write" }),
        fake.text("ok"),
      ]);
      await using h = startHarness({
        models: [model],
        files: { "notes.txt": "saved text on disk\n" },
        readTextFile: unsaved,
      });
      await h.initialize(FS);
      const { sessionId } = await h.newSession();
      await h.prompt(sessionId, "edit it");
      for (const id of ["toolu_edit", "toolu_write"]) {
        const result = resultOf(h.updatesOf(sessionId), id);
        expect(result).toContain("notes.txt has unsaved changes in the editor");
        expect(result).toContain("Ask the user to save");
      }
      expect(readFileSync(join(h.root, "notes.txt"), "utf8")).toBe("saved text on disk\n");
    },
  );

  test("negative control: with the buffer saved the same edit is written", async () => {
    const model = new FakeModelClient([
      fake.toolCall("read_file", { path: "notes.txt" }),
      fake.toolCall(
        "edit_file",
        { path: "notes.txt", old_string: "saved", new_string: "edited" },
        { id: "toolu_edit" },
      ),
      fake.text("ok"),
    ]);
    await using h = startHarness({
      models: [model],
      files: { "notes.txt": "saved text on disk\n" },
      readTextFile: (params) => ({ content: readFileSync(params.path, "utf8") }),
    });
    await h.initialize(FS);
    const { sessionId } = await h.newSession();
    await h.prompt(sessionId, "edit it");
    expect(readFileSync(join(h.root, "notes.txt"), "utf8")).toBe("edited text on disk\n");
  });

  test("an @-mention (a file link from the editor) attaches the buffer, with the note", async () => {
    const model = new FakeModelClient([fake.text("ok")]);
    await using h = startHarness({
      models: [model],
      files: { "notes.txt": "saved text on disk\n" },
      readTextFile: unsaved,
    });
    await h.initialize(FS);
    const { sessionId } = await h.newSession();
    await h.prompt(sessionId, [
      { type: "text", text: "look at" },
      { type: "resource_link", name: "notes.txt", uri: pathToFileURL(join(h.root, "notes.txt")).href },
    ]);
    const text = userText(model, 0);
    expect(text).toContain("unsaved text in the editor");
    expect(text).toContain("This is the editor's unsaved buffer of notes.txt");
  });

  test(
    "red team: ../outside, a symlink out of the root, an absolute path elsewhere " +
      "and a sensitive file never reach fs/read_text_file",
    async () => {
      using outside = tempDir("garuda-outside-");
      writeFileSync(join(outside.path, "secret.txt"), "outside text\n");
      const model = new FakeModelClient([
        fake.toolCall("read_file", { path: join(outside.path, "secret.txt") }, { id: "toolu_abs" }),
        fake.toolCall("read_file", { path: "link.txt" }, { id: "toolu_link" }),
        fake.toolCall("read_file", { path: "sub/link-dir/secret.txt" }, { id: "toolu_linkdir" }),
        fake.toolCall("read_file", { path: ".env" }, { id: "toolu_env" }),
        fake.text("ok"),
      ]);
      await using h = startHarness({
        models: [model],
        files: { ".env": "KEY=1\n" },
        readTextFile: () => ({ content: "FROM THE EDITOR" }),
      });
      symlinkSync(join(outside.path, "secret.txt"), join(h.root, "link.txt"));
      mkdirSync(join(h.root, "sub"));
      symlinkSync(outside.path, join(h.root, "sub/link-dir"));
      await h.initialize(FS);
      const { sessionId } = await h.newSession();
      // The user allows each outside read: the buffer still is not asked for.
      await h.prompt(sessionId, "read them");
      const updates = h.updatesOf(sessionId);
      expect(resultOf(updates, "toolu_abs")).toContain("outside text");
      expect(resultOf(updates, "toolu_link")).toContain("outside text");
      expect(resultOf(updates, "toolu_linkdir")).toContain("outside text");
      expect(resultOf(updates, "toolu_env")).toContain("may hold secrets");
      expect(h.textFileReads).toEqual([]);

      // ../ from the root, by the model and as an @-mention.
      const relative = `../${outside.path.split("/").at(-1)}/secret.txt`;
      model.push(
        fake.toolCall("read_file", { path: relative }, { id: "toolu_dotdot" }),
        fake.text("ok"),
        fake.text("ok"),
      );
      await h.prompt(sessionId, "again");
      expect(resultOf(h.updatesOf(sessionId), "toolu_dotdot")).toContain("outside text");
      await h.prompt(sessionId, `look at @${relative}`);
      expect(h.textFileReads).toEqual([]);
    },
  );

  // The negative control is the first test above: the same editor without the swap gives its buffer.
  describe("red team (issue 31.2): a link swapped over the file between Garuda's read and the editor's", () => {
    const KEY = "-----BEGIN OPENSSH PRIVATE KEY-----\nfake key of the test home\n-----END OPENSSH PRIVATE KEY-----\n";

    /** A fake ~/.ssh/id_rsa in the harness's home. */
    function plantKey(home: string): string {
      mkdirSync(join(home, ".ssh"), { recursive: true, mode: 0o700 });
      const key = join(home, ".ssh", "id_rsa");
      writeFileSync(key, KEY, { mode: 0o600 });
      return key;
    }

    /**
     * An editor that follows links on the host, as a real one does, while a job in the project swaps
     * `path` for a link to `key` just before the editor reads it (the worst timing of a loop that
     * swaps it over and over, made certain); `restore`: the job puts the file back right after.
     */
    function racedEditor(key: string, restore: boolean) {
      return (params: acp.ReadTextFileRequest): acp.ReadTextFileResponse => {
        const saved = `${params.path}.saved`;
        renameSync(params.path, saved);
        symlinkSync(key, `${params.path}.link`);
        renameSync(`${params.path}.link`, params.path);
        const content = readFileSync(params.path, "utf8");
        if (restore) renameSync(saved, params.path);
        return { content };
      };
    }

    /** A session's harness whose editor is racedEditor(), with the key planted in its home. */
    function racedHarness(model: FakeModelClient, restore: boolean) {
      let key = "";
      const h = startHarness({
        models: [model],
        files: { "notes.txt": "saved text on disk\n" },
        readTextFile: (params) => racedEditor(key, restore)(params),
      });
      key = plantKey(h.home);
      return h;
    }

    for (const restore of [false, true]) {
      const how = restore ? "swapped and put back" : "swapped";
      test(
        `read_file: the key is not given as the buffer (${how}); the disk text as read ` + `is, with a note`,
        async () => {
          const model = new FakeModelClient([
            fake.toolCall("read_file", { path: "notes.txt" }, { id: "toolu_read" }),
            fake.text("ok"),
          ]);
          await using h = racedHarness(model, restore);
          await h.initialize(FS);
          const { sessionId } = await h.newSession();
          await h.prompt(sessionId, "read it");
          const result = resultOf(h.updatesOf(sessionId), "toolu_read");
          // The attack ran: the editor was asked, and what it read through the link was the key.
          expect(h.textFileReads.map((read) => read.path)).toEqual([join(realpathSync(h.root), "notes.txt")]);
          expect(result).not.toContain("fake key of the test home");
          expect(result).toContain("saved text on disk");
          expect(result).toContain("The editor's buffer of notes.txt was not used: the path changed");
          expect(JSON.stringify(model.requests)).not.toContain("fake key of the test home");
        },
      );

      test(`an @-mention (the editor's file link): the key is not attached (${how})`, async () => {
        const model = new FakeModelClient([fake.text("ok")]);
        await using h = racedHarness(model, restore);
        await h.initialize(FS);
        const { sessionId } = await h.newSession();
        await h.prompt(sessionId, [
          { type: "text", text: "look at" },
          { type: "resource_link", name: "notes.txt", uri: pathToFileURL(join(h.root, "notes.txt")).href },
        ]);
        expect(h.textFileReads.length).toBe(1);
        const text = userText(model, 0);
        expect(text).not.toContain("fake key of the test home");
        expect(text).toContain("saved text on disk");
        expect(text).toContain("The editor's buffer of notes.txt was not used");
      });
    }
  });
});
