// ACP `logout` through the compiled binary and the SDK's client: advertised as
// agentCapabilities.auth.logout, it removes the model's key from ~/.garuda/credentials (the
// file rewritten whole, still 0600, every other key kept), and the next session/new answers
// auth required (-32000) with the sign-in still offered; a key saved again (what Terminal Auth's
// `garuda acp setup` does) works on the same connection. A key the editor set in the environment
// is forgotten by that process too.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { garudaBinary } from "../support/garudaBinary.ts";
import { expectOnlyProtocol, startAgent } from "../support/acpAgent.ts";
import { startMockAnthropic } from "../support/mockAnthropic.ts";
import { makeTempDir } from "../support/tempDir.ts";

let work = "";
let binary = "";

beforeAll(
  async () => {
    work = makeTempDir("garuda-acp-logout-");
    binary = await garudaBinary();
  },
  { timeout: 180_000 },
);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

const KEY = "sk-ant-process-test";

/** A home whose ~/.garuda/credentials holds `credentials` (0600 in a 0700 folder). */
function homeWith(credentials: Record<string, string>): { home: string; file: string } {
  const home = makeTempDir("home-", { under: work });
  const dir = join(home, ".garuda");
  mkdirSync(dir, { mode: 0o700 });
  const file = join(dir, "credentials");
  writeFileSync(file, JSON.stringify(credentials), { mode: 0o600 });
  return { home, file };
}

async function rejection(promise: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await promise;
  } catch (error) {
    return error as { code: number; message: string };
  }
  throw new Error("expected the request to fail");
}

describe("logout, the compiled binary", () => {
  test("removes the model's key and keeps the others; the next session/new asks for a sign-in", async () => {
    await using mock = startMockAnthropic({
      apiKey: KEY,
      script: [{ steps: [{ type: "text", text: "signed in" }] }, { steps: [{ type: "text", text: "again" }] }],
    });
    const { home, file } = homeWith({ ANTHROPIC_API_KEY: KEY, ANTHROPIC_AUTH_TOKEN: "tok-0123", OTHER_KEY: "kept" });
    const root = makeTempDir("root-", { under: work });
    const agent = startAgent(binary, mock, root, work, undefined, home, {}, { ANTHROPIC_API_KEY: undefined });
    const init = await agent.agent.request(acp.methods.agent.initialize, {
      protocolVersion: 1,
      clientCapabilities: { auth: { terminal: true } },
    });
    expect(init.agentCapabilities?.auth).toEqual({ logout: {} });
    expect(init.authMethods?.map((method) => method.id)).toEqual(["garuda-setup"]);

    const first = await agent.agent.request(acp.methods.agent.session.new, { cwd: root, mcpServers: [] });
    const answer = await agent.agent.request(acp.methods.agent.session.prompt, {
      sessionId: first.sessionId,
      prompt: [{ type: "text", text: "hi" }],
    });
    expect(answer.stopReason).toBe("end_turn");

    expect(await agent.agent.request(acp.methods.agent.logout, {})).toEqual({});
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ OTHER_KEY: "kept" });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const refused = await rejection(agent.agent.request(acp.methods.agent.session.new, { cwd: root, mcpServers: [] }));
    expect(refused.code).toBe(-32000);
    expect(refused.message).toContain("Garuda has no key for claude-sonnet-5 (ANTHROPIC_API_KEY)");

    // Terminal Auth saves a key again: the same connection starts sessions again.
    writeFileSync(file, JSON.stringify({ OTHER_KEY: "kept", ANTHROPIC_API_KEY: KEY }), { mode: 0o600 });
    const again = await agent.agent.request(acp.methods.agent.session.new, { cwd: root, mcpServers: [] });
    const second = await agent.agent.request(acp.methods.agent.session.prompt, {
      sessionId: again.sessionId,
      prompt: [{ type: "text", text: "hi again" }],
    });
    expect(second.stopReason).toBe("end_turn");
    // A second logout with nothing left to forget is still a success.
    expect(await agent.agent.request(acp.methods.agent.logout, {})).toEqual({});
    expect(await agent.agent.request(acp.methods.agent.logout, {})).toEqual({});
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ OTHER_KEY: "kept" });
    expectOnlyProtocol(agent.lines, agent.tail);
    agent.proc.stdin.end();
    expect(await agent.proc.exited).toBe(0);
  }, 120_000);

  test("a key from the editor's environment is forgotten by the process", async () => {
    await using mock = startMockAnthropic({ apiKey: KEY, script: [] });
    const { home, file } = homeWith({ OTHER_KEY: "kept" });
    const root = makeTempDir("root-", { under: work });
    const agent = startAgent(binary, mock, root, work, undefined, home);
    await agent.agent.request(acp.methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
    await agent.agent.request(acp.methods.agent.session.new, { cwd: root, mcpServers: [] });
    expect(await agent.agent.request(acp.methods.agent.logout, {})).toEqual({});
    const refused = await rejection(agent.agent.request(acp.methods.agent.session.new, { cwd: root, mcpServers: [] }));
    expect(refused.code).toBe(-32000);
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ OTHER_KEY: "kept" });
    agent.proc.stdin.end();
    expect(await agent.proc.exited).toBe(0);
  }, 60_000);

  test("a credentials file Garuda will not read is an error, and nothing is written", async () => {
    await using mock = startMockAnthropic({ apiKey: KEY, script: [] });
    const { home, file } = homeWith({ ANTHROPIC_API_KEY: KEY });
    writeFileSync(file, "{ not json", { mode: 0o600 });
    const root = makeTempDir("root-", { under: work });
    const agent = startAgent(binary, mock, root, work, undefined, home, {}, { ANTHROPIC_API_KEY: undefined });
    await agent.agent.request(acp.methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
    const failed = await rejection(agent.agent.request(acp.methods.agent.logout, {}));
    expect(failed.code).toBe(-32603);
    expect(failed.message).toContain("is not valid JSON");
    expect(readFileSync(file, "utf8")).toBe("{ not json");
    agent.proc.stdin.end();
    expect(await agent.proc.exited).toBe(0);
  }, 60_000);
});
