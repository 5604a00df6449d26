// Issue 34.6, `!cmd` in a real pseudo-terminal with the real sandbox (bubblewrap), against the
// mock Anthropic server: the user's own command runs through the session's bash tool, so it
// writes in the project, cannot write outside it (the sandbox), is refused by a deny rule of the
// permission engine, and is drawn like the model's commands; neither the command nor its output
// reaches the model (no request for it, nothing of it in the next prompt's request).
import { expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { garudaPaths } from "../../src/config/paths.ts";
import { startMockAnthropic } from "../support/mockAnthropic.ts";
import { ChatPty, chatEnv, KEYS, workspace } from "../support/chatHarness.ts";
import { describeSandbox } from "../support/sandboxSupport.ts";

describeSandbox(
  "!cmd in the chat",
  () => {
    test("runs in the sandbox under the permission engine, shown as a command, not sent to the model", async () => {
      await using mock = startMockAnthropic({ script: [{ steps: [{ type: "text", text: "Noted." }] }] });
      using ws = workspace();
      const paths = garudaPaths(ws.home);
      mkdirSync(paths.dir, { recursive: true });
      writeFileSync(paths.policy, JSON.stringify({ permissions: { deny: ["bash(rm *)"] } }));
      const chat = new ChatPty([], { cwd: ws.root, env: chatEnv(mock, ws.home) });
      await chat.prompt();
      chat.type("!echo made-by-user-7 > inside.txt && cat inside.txt");
      const ran = await chat.waitFor("neither it nor its output was sent to the model");
      expect(ran).toContain("$ echo made-by-user-7 > inside.txt && cat inside.txt");
      expect(ran).toContain("made-by-user-7");
      expect(readFileSync(join(ws.root, "inside.txt"), "utf8")).toBe("made-by-user-7\n");

      // The sandbox: the folder beside the project cannot be written.
      await chat.prompt();
      chat.type("!echo out > ../home/escape.txt");
      const outside = await chat.waitFor("neither it nor its output was sent to the model");
      expect(outside).toContain("Read-only file system");
      expect(existsSync(join(ws.home, "escape.txt"))).toBe(false);

      // The permission engine: the policy's deny rule refuses it before it runs.
      await chat.prompt();
      chat.type("!rm inside.txt");
      const refused = await chat.waitFor("neither it nor its output was sent to the model");
      expect(refused).toContain("Permission denied");
      expect(refused).toContain("(bash(rm *))");
      expect(existsSync(join(ws.root, "inside.txt"))).toBe(true);

      // Nothing of it went to the model: no request so far, none of its output in the next one.
      expect(mock.requests).toHaveLength(0);
      await chat.prompt();
      chat.type("what now?");
      await chat.waitFor("Noted.");
      expect(JSON.stringify(mock.requests[0]?.body?.messages)).not.toContain("made-by-user-7");
      await chat.prompt();
      chat.send(KEYS.ctrlD);
      expect(await chat.exit()).toBe(0);
    }, 60_000);
  },
  "bwrap",
);
