// The chat in a pseudo-terminal, the way QA found it wanting: "yes" + Enter at a question, a
// failed command's output, TERM=dumb, a bare "/", Ctrl-C at a question, and Ctrl-Z under a shell.
import { describe, expect, test } from "bun:test";
import { startMockAnthropic } from "../support/mockAnthropic.ts";
import { ChatPty, chatEnv, ENTRY, KEYS, plain, workspace } from "../support/chatHarness.ts";

const writeA = {
  steps: [{ type: "tool_use" as const, name: "write_file", id: "toolu_a", input: { path: "a.txt", content: "one\n" } }],
};
const writeB = {
  steps: [{ type: "tool_use" as const, name: "write_file", id: "toolu_b", input: { path: "b.txt", content: "two\n" } }],
};
const text = (said: string) => ({ steps: [{ type: "text" as const, text: said }] });

/** Types `keys` one at a time, as a person does. */
async function typeEach(chat: ChatPty, keys: string): Promise<void> {
  for (const key of keys) {
    chat.send(key);
    await Bun.sleep(60);
  }
}

describe("the chat in a terminal (QA's findings)", () => {
  test('"yes" or "no" + Enter at a question answers it and sends nothing more; a bare ' +
    '"/" lists the commands', async () => {
    await using mock = startMockAnthropic({
      script: [writeA, text("Wrote a."), writeB, text("Skipped b."), text("NOT EXPECTED")],
    });
    using ws = workspace();
    const chat = new ChatPty([], { cwd: ws.root, env: chatEnv(mock, ws.home) });
    await chat.prompt();
    chat.type("write a");
    await chat.waitFor("[n] Deny");
    await chat.afterGrace();
    await typeEach(chat, "yes\r");
    await chat.waitFor("Wrote a.");
    await chat.prompt();
    chat.type("write b");
    await chat.waitFor("[n] Deny");
    await chat.afterGrace();
    await typeEach(chat, "no\r");
    await chat.waitFor("Skipped b.");
    await chat.prompt();
    chat.type("/");
    await chat.waitFor("Commands:");
    await chat.waitFor("/exit");
    await chat.prompt();
    await Bun.sleep(300);
    expect(chat.text).not.toContain("› es");
    expect(chat.text).not.toContain("› o\n");
    chat.type("/exit");
    expect(await chat.exit()).toBe(0);
    // Two turns of two requests each; neither "es", "o" nor "/" reached the model.
    expect(mock.requests.length).toBe(4);
  }, 60_000);

  test("a failed command shows the end of its output under its result; Ctrl-C at a " +
    "question says denied first", async () => {
    await using mock = startMockAnthropic({
      script: [
        {
          steps: [
            {
              type: "tool_use",
              name: "bash",
              id: "toolu_sh",
              input: { command: "echo 'error: cannot find module foo' >&2; echo line2; exit 3" },
            },
          ],
        },
        text("It failed."),
        writeA,
      ],
    });
    using ws = workspace();
    const chat = new ChatPty([], { cwd: ws.root, env: chatEnv(mock, ws.home) });
    await chat.prompt();
    chat.type("go");
    const shown = await chat.waitFor("It failed.");
    expect(shown).toContain("  ✗ Exit code 3\n    error: cannot find module foo\n    line2\n");
    expect(chat.raw).toContain("\x1b[2m    error: cannot find module foo");
    await chat.prompt();
    chat.type("write a");
    await chat.waitFor("[n] Deny");
    chat.send(KEYS.ctrlC);
    const stopped = await chat.waitFor("Garuda: Write a.txt cancelled.");
    expect(stopped.indexOf("→ Denied (stopped).")).toBeGreaterThanOrEqual(0);
    expect(stopped.indexOf("→ Denied (stopped).")).toBeLessThan(stopped.indexOf("Cancelled."));
    await chat.prompt();
    chat.send(KEYS.ctrlD);
    expect(await chat.exit()).toBe(0);
  }, 60_000);

  test("TERM=dumb: plain lines, not one escape sequence; answers are typed lines", async () => {
    await using mock = startMockAnthropic({ script: [writeA, text("Wrote a.")] });
    using ws = workspace();
    const chat = new ChatPty([], { cwd: ws.root, env: chatEnv(mock, ws.home, { TERM: "dumb" }) });
    await chat.waitFor("› ");
    chat.type("write a");
    await chat.waitFor("(type the letter, then Enter)");
    chat.type("y");
    await chat.waitFor("Wrote a.");
    await chat.waitFor("› ");
    chat.send(KEYS.ctrlD);
    expect(await chat.exit()).toBe(0);
    expect(chat.raw).not.toContain("\x1b");
  }, 60_000);

  test.skipIf(!Bun.which("setsid") || !Bun.which("bash"))(
    "Ctrl-Z under a shell stops the chat; fg brings it back with the prompt as it was",
    async () => {
      await using mock = startMockAnthropic({ script: [text("Back and answering.")] });
      using ws = workspace();
      let raw = "";
      const decoder = new TextDecoder();
      const terminal = new Bun.Terminal({
        cols: 120,
        rows: 40,
        data: (_t, data) => (raw += decoder.decode(data, { stream: true })),
      });
      const env = { ...chatEnv(mock, ws.home), PS1: "shell$ " };
      // A session of its own with the terminal as its controlling one, so the shell has job control.
      const shell = Bun.spawn(["setsid", "--ctty", "bash", "--norc", "--noprofile", "-i"], {
        terminal,
        env,
        cwd: ws.root,
      });
      const waitFor = async (pattern: string, from = 0) => {
        const deadline = Date.now() + 15_000;
        while (!plain(raw).slice(from).includes(pattern)) {
          if (Date.now() > deadline) throw new Error(`"${pattern}" did not appear:\n${plain(raw)}`);
          await Bun.sleep(20);
        }
        return plain(raw).length;
      };
      try {
        await waitFor("shell$ ");
        terminal.write(`'${process.execPath}' '${ENTRY}'\r`);
        let at = await waitFor("› ");
        terminal.write("half a prompt");
        at = await waitFor("› half a prompt", at - 2);
        terminal.write("\x1a");
        at = await waitFor("Stopped", at);
        terminal.write("echo the shell is here\r");
        at = await waitFor("the shell is here\nshell$ ", at);
        terminal.write("fg\r");
        at = await waitFor("› half a prompt", at);
        terminal.write(", done\r");
        await waitFor("Back and answering.", at);
        expect(JSON.stringify(mock.requests[0]?.body?.messages)).toContain("half a prompt, done");
        terminal.write("\x04");
        await Bun.sleep(500);
        terminal.write("exit\r");
        expect(await shell.exited).toBe(0);
      } finally {
        shell.kill("SIGKILL");
        terminal.close();
      }
    },
    60_000,
  );
});
