// /rewind and Esc Esc in the real chat (`garuda` from source) in a pseudo-terminal, against the
// mock Anthropic server, with the real sandbox: the menu lists each prompt with the files the
// turns after it changed (a sandboxed command's and an edit's); choosing one and "files and
// conversation" puts both back and gives the prompt back to edit; the next request lacks what was
// dropped; a file changed outside Garuda is asked about first (n keeps it). Esc Esc on an empty
// prompt opens the same list; n leaves it, changing nothing.
import { expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type MockResponse, startMockAnthropic } from "../support/mockAnthropic.ts";
import { ChatPty, chatEnv, KEYS, workspace } from "../support/chatHarness.ts";
import { describeSandbox } from "../support/sandboxSupport.ts";

const call = (name: string, id: string, input: Record<string, unknown>): MockResponse => ({
  steps: [{ type: "tool_use", name, id, input }],
});
const say = (text: string): MockResponse => ({ steps: [{ type: "text", text }] });

describeSandbox(
  "the chat's rewind",
  () => {
    test("/rewind puts back a command's and an edit's files and the conversation; Esc Esc opens the list", async () => {
      await using mock = startMockAnthropic({
        script: [
          call("bash", "toolu_sh", { command: "echo made > made.txt" }),
          say("Made the file."),
          call("read_file", "toolu_read", { path: "notes.txt" }),
          call("edit_file", "toolu_edit", { path: "notes.txt", old_string: "draft", new_string: "final" }),
          say("The note is final now."),
          say("Starting over."),
        ],
      });
      using ws = workspace();
      const notes = join(ws.root, "notes.txt");
      writeFileSync(notes, "a draft note\n");
      const chat = new ChatPty([], { cwd: ws.root, env: chatEnv(mock, ws.home) });
      await chat.prompt();
      chat.type("Make a file");
      await chat.waitFor("Made the file.");
      await chat.prompt();
      chat.type("Make the note final");
      await chat.waitFor("[n] Deny");
      await chat.answer("y");
      await chat.waitFor("The note is final now.");
      expect(readFileSync(join(ws.root, "made.txt"), "utf8")).toBe("made\n");
      expect(readFileSync(notes, "utf8")).toBe("a final note\n");

      // Esc Esc on the empty prompt: the list; n leaves it as it was.
      await chat.prompt();
      chat.send("\x1b");
      await Bun.sleep(100);
      chat.send("\x1b");
      const listed = await chat.waitFor("[n] decline to answer");
      expect(listed).toContain("Rewind to just before which prompt?");
      expect(listed).toMatch(/\[1\] Make a file — changed since: (made\.txt, notes\.txt|notes\.txt, made\.txt)/);
      expect(listed).toContain("[2] Make the note final — changed since: notes.txt");
      await chat.answer("n");
      await chat.waitFor("→ Declined.");
      expect(readFileSync(notes, "utf8")).toBe("a final note\n");

      // made.txt changed outside Garuda: the rewind asks before removing it, and n keeps it.
      writeFileSync(join(ws.root, "made.txt"), "mine\n");
      await chat.prompt();
      chat.type("/rewind");
      await chat.waitFor("[2] Make the note final");
      await chat.waitFor("[n] decline to answer");
      await chat.answer("1");
      const how = await chat.waitFor("[n] decline to answer");
      expect(how).toContain("Put back what, to before “Make a file”?");
      expect(how).toContain("[1] Files and conversation");
      await chat.answer("1");
      const outside = await chat.waitFor("[n] Leave them as they are");
      expect(outside).toContain("These files changed outside Garuda since its last turn.");
      expect(outside).toContain("made.txt");
      await chat.answer("n");
      await chat.waitFor("Restored notes.txt.");
      await chat.waitFor("Left as they are (changed outside Garuda, and you said no): made.txt.");
      await chat.waitFor("The conversation is back to before “Make a file”");
      expect(readFileSync(notes, "utf8")).toBe("a draft note\n");
      expect(readFileSync(join(ws.root, "made.txt"), "utf8")).toBe("mine\n");
      // The prompt comes back to edit: Enter sends it again.
      await chat.waitFor("› Make a file");
      const before = mock.requests.length;
      // An Enter right after an answer key is the answer's own ("1⏎", answerTail.ts): a moment later, it sends.
      await Bun.sleep(1000);
      chat.send(KEYS.enter);
      await chat.waitFor("Starting over.");
      expect(mock.requests.length).toBe(before + 1);
      const sent = JSON.stringify(mock.requests.at(-1)?.body?.messages);
      expect(sent).toContain("Make a file");
      expect(sent).not.toContain("Made the file.");
      expect(sent).not.toContain("Make the note final");
      await chat.prompt();
      chat.type("/exit");
      expect(await chat.exit()).toBe(0);
    }, 60_000);
  },
  "bwrap",
);
