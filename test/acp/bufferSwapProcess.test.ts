// Issue 31.2 against the compiled binary: `garuda acp` driven by the SDK's client, an editor that
// has unsaved buffers and follows links on the host, and a real background job in the bubblewrap
// sandbox that swaps a project file for a link to the test home's ~/.ssh/id_rsa between Garuda's
// read of the file and its request to the editor (the job waits for the request, so the timing is
// certain, not lucky). The key must reach neither the model (every request the mock server got) nor
// the editor's screen; a buffer of a file nobody swaps is still used (the negative control).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, lstatSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { garudaBinary } from "../support/garudaBinary.ts";
import { startAgent, toolResultText } from "../support/acpAgent.ts";
import { startMockAnthropic } from "../support/mockAnthropic.ts";
import { until } from "../support/processes.ts";
import { describeSandbox } from "../support/sandboxSupport.ts";
import { makeTempDir } from "../support/tempDir.ts";

const KEY_LINE = "fake-key-of-the-test-home-31b2";

let work = "";
let binary = "";

beforeAll(
  async () => {
    work = makeTempDir("garuda-acp-buffer-swap-");
    binary = await garudaBinary();
  },
  { timeout: 180_000 },
);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describeSandbox("an editor buffer is the file Garuda checked (compiled binary, real sandboxed job)", () => {
  test("a job swaps notes.txt for a link to ~/.ssh/id_rsa while the editor is asked: the key is not used", async () => {
    const root = makeTempDir("root-", { under: work });
    const home = makeTempDir("home-", { under: work });
    mkdirSync(join(home, ".ssh"), { mode: 0o700 });
    const key = join(home, ".ssh", "id_rsa");
    writeFileSync(key, `-----BEGIN OPENSSH PRIVATE KEY-----\n${KEY_LINE}\n-----END OPENSSH PRIVATE KEY-----\n`, {
      mode: 0o600,
    });
    writeFileSync(join(root, "notes.txt"), "saved notes on disk\n");
    writeFileSync(join(root, "other.txt"), "saved other on disk\n");
    // The job, in the sandbox: waits for the sign that Garuda asked the editor (in a folder of its
    // own, so the sign changes nothing on notes.txt's way), then swaps the file for a link (a link's
    // target is only a name: the sandbox's hiding of ~/.ssh does not stop it).
    mkdirSync(join(root, "signal"));
    const job =
      `while [ ! -e signal/go ]; do sleep 0.01; done; ln -s '${key}' notes.link && mv ` +
      `-T notes.link notes.txt; sleep 60`;
    await using mock = startMockAnthropic({
      apiKey: "sk-ant-process-test",
      script: [
        { steps: [{ type: "tool_use", name: "read_file", id: "toolu_other", input: { path: "other.txt" } }] },
        {
          steps: [
            {
              type: "tool_use",
              name: "process_manager",
              id: "toolu_job",
              input: { action: "start", command: job },
            },
          ],
        },
        { steps: [{ type: "tool_use", name: "read_file", id: "toolu_notes", input: { path: "notes.txt" } }] },
        { steps: [{ type: "text", text: "Read." }] },
      ],
    });
    const asked: string[] = [];
    // The editor: unsaved text for other.txt; for notes.txt it reads the path as an editor does, following links.
    const editor = async (params: acp.ReadTextFileRequest): Promise<acp.ReadTextFileResponse> => {
      asked.push(params.path);
      if (params.path.endsWith("other.txt")) return { content: "unsaved other in the editor\n" };
      writeFileSync(join(root, "signal", "go"), "");
      await until(() => lstatSync(params.path).isSymbolicLink() || undefined, "the job's swap", 10_000);
      return { content: readFileSync(params.path, "utf8") };
    };
    const { proc, agent, updates } = startAgent(binary, mock, root, work, undefined, home, { readTextFile: editor });
    try {
      await agent.request(acp.methods.agent.initialize, {
        protocolVersion: 1,
        clientCapabilities: { fs: { readTextFile: true } },
      });
      const { sessionId } = await agent.request(acp.methods.agent.session.new, { cwd: root, mcpServers: [] });
      const done = await agent.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: "text", text: "Read the notes." }],
      });
      expect(done.stopReason).toBe("end_turn");

      // Negative control: an unswapped file's buffer is used.
      expect(toolResultText(updates, "toolu_other")).toContain("unsaved other in the editor");
      // The attack ran for real: the job swapped the file, and the editor read the key through the link.
      expect(existsSync(join(root, "signal", "go"))).toBe(true);
      expect(lstatSync(join(root, "notes.txt")).isSymbolicLink()).toBe(true);
      expect(asked.filter((path) => path.endsWith("notes.txt")).length).toBe(1);
      // And the key went nowhere: the disk text Garuda read is what the model and the editor got.
      const notes = toolResultText(updates, "toolu_notes");
      expect(notes).toContain("saved notes on disk");
      expect(notes).toContain("The editor's buffer of notes.txt was not used");
      expect(JSON.stringify(updates)).not.toContain(KEY_LINE);
      expect(mock.requests.length).toBe(4);
      expect(JSON.stringify(mock.requests)).not.toContain(KEY_LINE);
    } finally {
      proc.stdin.end();
      await proc.exited;
    }
  }, 60_000);
});
