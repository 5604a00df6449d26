// session/delete belongs to the project, as load and resume do (issue 31, item 8), with the compiled
// binary as an editor runs it: a session made in project A is not deleted by an editor that works in
// project B (its session/new and session/list name B), nor by a guessed id; once that editor lists
// A's sessions (or all of them, as a history of every project does) the same delete goes through.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { garudaBinary } from "../support/garudaBinary.ts";
import { findSessionFile } from "../../src/store/sessionCatalog.ts";
import { startAgent } from "../support/acpAgent.ts";
import { rejection } from "../support/acpHarness.ts";
import { startMockAnthropic } from "../support/mockAnthropic.ts";
import { makeTempDir } from "../support/tempDir.ts";

let work = "";
let binary = "";

beforeAll(
  async () => {
    work = makeTempDir("garuda-history-scope-");
    binary = await garudaBinary();
  },
  { timeout: 180_000 },
);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

const init = { protocolVersion: 1, clientCapabilities: {} };

/** Quits an agent as an editor does (stdin closed); its exit code. */
async function quit(agent: ReturnType<typeof startAgent>): Promise<number> {
  agent.proc.stdin.end();
  const code = await agent.proc.exited;
  agent.connection.close();
  return code;
}

describe("session/delete over ACP, the compiled binary", () => {
  test("a session of project A is not deleted from an editor working in project B; " +
    "listed for A (or in the list of all), it is", async () => {
    await using mock = startMockAnthropic({
      apiKey: "sk-ant-process-test",
      script: [{ steps: [{ type: "text", text: "Noted." }] }, { steps: [{ type: "text", text: "Also noted." }] }],
    });
    const projectA = makeTempDir("project-a-", { under: work });
    const projectB = makeTempDir("project-b-", { under: work });

    // Project A: two sessions, each with a prompt (so each has its file), then the editor quits.
    const a = startAgent(binary, mock, projectA, work);
    await a.agent.request(acp.methods.agent.initialize, init);
    const ids: string[] = [];
    for (const text of ["first", "second"]) {
      const { sessionId } = await a.agent.request(acp.methods.agent.session.new, { cwd: projectA, mcpServers: [] });
      await a.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] });
      ids.push(sessionId);
    }
    expect(await quit(a)).toBe(0);
    const [first, second] = ids as [string, string];
    const sessions = join(a.home, ".garuda", "sessions");
    const fileOf = (id: string) => findSessionFile(sessions, id);
    expect(fileOf(first) && fileOf(second)).toBeTruthy();

    // An editor in project B: its session and its list name B; A's ids are refused, files kept.
    const b = startAgent(binary, mock, projectB, work, undefined, a.home);
    try {
      await b.agent.request(acp.methods.agent.initialize, init);
      await b.agent.request(acp.methods.agent.session.new, { cwd: projectB, mcpServers: [] });
      expect((await b.agent.request(acp.methods.agent.session.list, { cwd: projectB })).sessions).toEqual([]);
      for (const id of ids) {
        const refused = await rejection(b.agent.request(acp.methods.agent.session.delete, { sessionId: id }));
        expect(refused.code).toBe(-32602);
        expect(refused.message).toContain(`session ${id} belongs to the project`);
        expect(refused.message).toContain("so it is not deleted");
        expect(existsSync(fileOf(id) as string)).toBe(true);
      }
      // Negative control: listed for A, the same call deletes.
      await b.agent.request(acp.methods.agent.session.list, { cwd: projectA });
      expect(await b.agent.request(acp.methods.agent.session.delete, { sessionId: first })).toEqual({});
      expect(fileOf(first)).toBeUndefined();
    } finally {
      await quit(b);
    }

    // Another editor in B that lists every project's sessions (no cwd) was shown A's: it may delete it.
    const c = startAgent(binary, mock, projectB, work, undefined, a.home);
    try {
      await c.agent.request(acp.methods.agent.initialize, init);
      await c.agent.request(acp.methods.agent.session.new, { cwd: projectB, mcpServers: [] });
      const all = await c.agent.request(acp.methods.agent.session.list, {});
      expect(all.sessions.map((s) => s.sessionId)).toEqual([second]);
      expect(await c.agent.request(acp.methods.agent.session.delete, { sessionId: second })).toEqual({});
      expect(fileOf(second)).toBeUndefined();
    } finally {
      await quit(c);
    }
  }, 120_000);
});
