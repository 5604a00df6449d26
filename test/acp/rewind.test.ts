// Rewind over ACP, in the compiled `garuda acp` driven by the SDK's client against the mock
// Anthropic server, with the real sandbox (bwrap) and tools: `_session/rewind_points` lists each
// prompt with what the turns after it changed; `_session/rewind` puts back files written by an
// edit tool and by a sandboxed command, drops the conversation from a message on (the model's
// next request lacks it, a replay does not show it), changes nothing in a dry run, asks before
// overwriting a file changed outside Garuda (a no leaves it), refuses while a turn runs, and
// works after the agent restarts and loads the session. `/undo 2` goes two turns back.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { garudaBinary } from "../support/garudaBinary.ts";
import { type EditorAnswers, startAgent } from "../support/acpAgent.ts";
import { type MockResponse, startMockAnthropic } from "../support/mockAnthropic.ts";
import { describeSandbox } from "../support/sandboxSupport.ts";
import { makeTempDir } from "../support/tempDir.ts";

let work = "";
let binary = "";

beforeAll(
  async () => {
    work = makeTempDir("garuda-acp-rewind-");
    binary = await garudaBinary();
  },
  { timeout: 180_000 },
);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

const reply = (text: string): MockResponse => ({ steps: [{ type: "text", text }] });
const write = (id: string, path: string, content: string): MockResponse => ({
  steps: [{ type: "tool_use", name: "write_file", id, input: { path, content } }],
});
/** The file tools write a file the session has read. */
const readIt = (id: string, path: string): MockResponse => ({
  steps: [{ type: "tool_use", name: "read_file", id, input: { path } }],
});
const shell = (id: string, command: string): MockResponse => ({
  steps: [{ type: "tool_use", name: "bash", id, input: { command, description: "Write files" } }],
});

type Json = Record<string, any>;
type Agent = ReturnType<typeof startAgent>;

function client(agent: Agent, sessionId: string) {
  const call = (method: string, params: Json) => agent.agent.request<Json, Json>(method, { sessionId, ...params });
  return {
    prompt: (text: string) =>
      agent.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] }),
    points: async () => (await call("_session/rewind_points", {})).points as Json[],
    rewind: (messageId: string, mode: string, dryRun = false) => call("_session/rewind", { messageId, mode, dryRun }),
  };
}

/** Every text the model was sent in a request (its messages), as one string. */
const sent = (body: any) => JSON.stringify(body.messages);
const read = (root: string, path: string) => readFileSync(join(root, path), "utf8");
const stop = async (agent: Agent) => {
  agent.proc.kill();
  await agent.proc.exited;
};

describeSandbox(
  "_session/rewind",
  () => {
    test("points, dry run, files (edit tool and sandboxed command), a file changed " +
      "outside Garuda, conversation; again after a restart and session/load", async () => {
      const mock = startMockAnthropic({
        apiKey: "sk-ant-process-test",
        script: [
          readIt("toolu_r1", "a.txt"),
          write("toolu_w1", "a.txt", "two\n"),
          reply("wrote a"),
          shell("toolu_s1", "echo made > b.txt && echo three > a.txt"),
          reply("ran it"),
          reply("third answer"),
          reply("fourth answer"),
          // After the restart.
          readIt("toolu_r2", "a.txt"),
          write("toolu_w2", "a.txt", "five\n"),
          reply("wrote five"),
          reply("sixth answer"),
        ],
      });
      const root = makeTempDir("root-", { under: work });
      writeFileSync(join(root, "a.txt"), "one\n");
      writeFileSync(join(root, "keep.txt"), "kept\n");
      // The question about a file changed outside Garuda is answered no.
      const asked: acp.RequestPermissionRequest[] = [];
      // A prompt sent while the rewind waits for its question is refused: no turn starts during a rewind.
      let promptNow: (() => Promise<unknown>) | undefined;
      let during: Promise<unknown> | undefined;
      const answers: EditorAnswers = {
        permission: async (params) => {
          if (params.toolCall.title?.startsWith("Rewind")) {
            asked.push(params);
            during = promptNow?.().then(
              () => "it ran",
              (error: unknown) => error,
            );
            await during;
            return { outcome: { outcome: "selected", optionId: "deny" } };
          }
          return { outcome: { outcome: "selected", optionId: "once" } };
        },
      };
      const home = makeTempDir("home-", { under: work });
      const first = startAgent(binary, mock, root, work, undefined, home, answers);
      const init = await first.agent.request(acp.methods.agent.initialize, {
        protocolVersion: 1,
        clientCapabilities: {},
      });
      expect(init._meta).toEqual({ steering: { supported: true }, rewind: { supported: true } });
      const { sessionId } = await first.agent.request(acp.methods.agent.session.new, { cwd: root, mcpServers: [] });
      const s = client(first, sessionId);
      promptNow = () => s.prompt("during the rewind");
      await s.prompt("first: write a");
      await s.prompt("second: run a command");
      await s.prompt("third: just talk");
      expect(read(root, "a.txt")).toBe("three\n");
      expect(read(root, "b.txt")).toBe("made\n");

      const points = await s.points();
      expect(points.map((p) => [p.text, p.index])).toEqual([
        ["first: write a", 0],
        ["second: run a command", 1],
        ["third: just talk", 2],
      ]);
      expect(points[0]?.filesChanged.sort()).toEqual(["a.txt", "b.txt"]);
      expect(points[1]?.filesChanged.sort()).toEqual(["a.txt", "b.txt"]);
      expect(points[2]?.filesChanged).toEqual([]);
      for (const point of points) expect(typeof point.messageId).toBe("string");
      // The ids are the ones the editor saw on the prompts' chunks.
      const [p1, p2] = points as [Json, Json, Json];

      // A dry run lists what would change and changes nothing.
      const requestsBefore = mock.requests.length;
      const dry = await s.rewind(p1.messageId, "both", true);
      expect(dry.files.filesChanged.sort()).toEqual(["a.txt", "b.txt"]);
      expect(dry.files.canRewind).toBe(true);
      expect(dry.conversation.rewound).toBe(false);
      expect(dry.conversation.messagesDropped).toBeGreaterThan(0);
      expect(read(root, "a.txt")).toBe("three\n");
      expect(read(root, "b.txt")).toBe("made\n");
      expect((await s.points()).length).toBe(3);

      // b.txt changed outside Garuda: asked about, and the no leaves it.
      writeFileSync(join(root, "b.txt"), "the user's own\n");
      const files = await s.rewind(p1.messageId, "files");
      expect(asked.length).toBe(1);
      expect(JSON.stringify(asked[0])).toContain("b.txt");
      expect(read(root, "a.txt")).toBe("one\n");
      expect(read(root, "b.txt")).toBe("the user's own\n");
      expect(read(root, "keep.txt")).toBe("kept\n");
      expect(files.files.restored).toEqual(["a.txt"]);
      expect(files.files.changedOutside).toEqual(["b.txt"]);
      expect(files.files.notes.join("\n")).toContain("b.txt");
      expect(files.conversation).toBeUndefined();
      expect(await during).toMatchObject({ message: expect.stringContaining("A rewind is running in this session") });
      promptNow = undefined;
      rmSync(join(root, "b.txt"));

      // The conversation from the second prompt on is dropped: the next request lacks it.
      const conversation = await s.rewind(p2.messageId, "conversation");
      expect(conversation.conversation).toEqual({ rewound: true, messagesDropped: expect.any(Number) });
      expect(conversation.conversation.messagesDropped).toBeGreaterThanOrEqual(4);
      expect(mock.requests.length).toBe(requestsBefore);
      await s.prompt("fourth: after the rewind");
      const fourth = sent(mock.requests.at(-1)?.body);
      expect(fourth).toContain("first: write a");
      expect(fourth).toContain("fourth: after the rewind");
      expect(fourth).not.toContain("second: run a command");
      expect(fourth).not.toContain("third: just talk");
      expect(fourth).not.toContain("ran it");
      expect((await s.points()).map((p) => p.text)).toEqual(["first: write a", "fourth: after the rewind"]);
      await stop(first);

      // A restart: the points are in the session file, the files in the snapshot store.
      const second = startAgent(binary, mock, root, work, undefined, home, answers);
      await second.agent.request(acp.methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
      await second.agent.request(acp.methods.agent.session.load, { sessionId, cwd: root, mcpServers: [] });
      // The replay shows the conversation as it is now: the dropped prompts are not in it.
      const replayed = second.updates.flatMap((u) =>
        u.sessionUpdate === "user_message_chunk" && u.content.type === "text" ? [u.content.text] : [],
      );
      expect(replayed).toEqual(["first: write a", "fourth: after the rewind"]);
      // The points' ids are the ones the editor sees on the prompts' chunks.
      const replayedIds = second.updates.flatMap((u) =>
        u.sessionUpdate === "user_message_chunk" ? [u.messageId] : [],
      );
      const again = client(second, sessionId);
      const loaded = await again.points();
      expect(loaded.map((p) => p.text)).toEqual(["first: write a", "fourth: after the rewind"]);
      expect(loaded.map((p) => p.messageId)).toEqual(replayedIds);
      await again.prompt("fifth: write five");
      expect(read(root, "a.txt")).toBe("five\n");
      const fifth = (await again.points()).at(-1) as Json;
      expect(fifth.text).toBe("fifth: write five");
      const both = await again.rewind(fifth.messageId, "both");
      expect(both.files.restored).toEqual(["a.txt"]);
      expect(read(root, "a.txt")).toBe("one\n");
      expect(both.conversation.rewound).toBe(true);
      await again.prompt("sixth");
      const sixth = sent(mock.requests.at(-1)?.body);
      expect(sixth).toContain("fourth: after the rewind");
      expect(sixth).not.toContain("fifth: write five");
      expect(sixth).not.toContain("wrote five");
      expect(asked.length).toBe(1);
      await stop(second);
      await mock.close();
    }, 120_000);

    test("refused while a turn runs and for an unknown id; /undo 2 puts back two turns", async () => {
      const mock = startMockAnthropic({
        apiKey: "sk-ant-process-test",
        script: [
          readIt("toolu_0", "x.txt"),
          write("toolu_1", "x.txt", "1\n"),
          reply("one"),
          shell("toolu_2", "echo 2 > x.txt && echo y > y.txt"),
          reply("two"),
          shell("toolu_held", "until [ -f go ]; do sleep 0.05; done"),
          reply("held"),
        ],
      });
      const root = makeTempDir("root-", { under: work });
      writeFileSync(join(root, "x.txt"), "0\n");
      const agent = startAgent(binary, mock, root, work);
      await agent.agent.request(acp.methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
      const { sessionId } = await agent.agent.request(acp.methods.agent.session.new, { cwd: root, mcpServers: [] });
      const s = client(agent, sessionId);
      await s.prompt("one");
      await s.prompt("two");
      expect(read(root, "x.txt")).toBe("2\n");
      const unknown = await s.rewind("no-such-id", "files").catch((error: { code: number; message: string }) => error);
      expect(unknown).toMatchObject({ code: -32602 });
      expect((unknown as { message: string }).message).toBeDefined();

      const held = s.prompt("three");
      const deadline = Date.now() + 20_000;
      while (!agent.updates.some((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === "toolu_held"))
        if (Date.now() > deadline) throw new Error("the held command never ran");
        else await Bun.sleep(20);
      const [p1] = await s.points();
      const refused = await s.rewind(p1?.messageId, "files").catch((error: { code: number }) => error);
      expect(refused).toMatchObject({ code: -32602 });
      expect(read(root, "x.txt")).toBe("2\n");
      writeFileSync(join(root, "go"), "");
      await held;
      rmSync(join(root, "go"));

      // Two turns back from the last: before "two".
      await s.prompt("/undo 2");
      expect(read(root, "x.txt")).toBe("1\n");
      expect(existsSync(join(root, "y.txt"))).toBe(false);
      await stop(agent);
      await mock.close();
    }, 90_000);
  },
  "bwrap",
);
