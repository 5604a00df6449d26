// The compiled binary as an editor runs it: `garuda acp` over stdin and stdout, driven by the
// SDK's client, against the mock Anthropic server (real SSE), with the real sandbox. A streamed
// prompt with a tool call and an approved edit; a cancel of `sleep 60` with the process checked
// gone; stdin closed in the middle of a command: exit 0, no child left; the history: a session
// listed and loaded by a second process after the first exited, refused to a third while the
// second writes it. Every stdout line must be one JSON-RPC message.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { appendFileSync, existsSync, mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { descendants } from "../../src/sandbox/processTree.ts";
import { expectOnlyProtocol, startAgent as startAgentAt } from "../support/acpAgent.ts";
import { type MockAnthropic, startMockAnthropic } from "../support/mockAnthropic.ts";
import { alive, startedBelow, until } from "../support/processes.ts";
import { makeTempDir } from "../support/tempDir.ts";
import { garudaBinary } from "../support/garudaBinary.ts";

let work = "";
let binary = "";

beforeAll(
  async () => {
    work = makeTempDir("garuda-acp-process-");
    binary = await garudaBinary();
  },
  { timeout: 180_000 },
);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

const startAgent = (mock: MockAnthropic, root: string, model?: string, home?: string) =>
  startAgentAt(binary, mock, root, work, model, home);

describe("garuda acp, the compiled binary over stdio", () => {
  test("initialize, session/new, a streamed prompt with an approved edit, a cancel, " +
    "and stdin closed mid-command", async () => {
    await using mock = startMockAnthropic({
      apiKey: "sk-ant-process-test",
      script: [
        {
          steps: [
            { type: "text", text: "Let me read the notes first.", fragments: 3 },
            { type: "tool_use", name: "read_file", id: "toolu_read", input: { path: "notes.txt" } },
          ],
        },
        {
          steps: [
            {
              type: "tool_use",
              name: "edit_file",
              id: "toolu_edit",
              input: { path: "notes.txt", old_string: "draft", new_string: "final" },
            },
          ],
        },
        { steps: [{ type: "text", text: "The notes now say final.", fragments: 2 }] },
        { steps: [{ type: "tool_use", name: "bash", id: "toolu_sleep", input: { command: "sleep 60" } }] },
        { steps: [{ type: "tool_use", name: "bash", id: "toolu_sleep_2", input: { command: "sleep 62" } }] },
      ],
    });
    const root = makeTempDir("root-", { under: work });
    writeFileSync(join(root, "notes.txt"), "a draft note\n");
    const { proc, agent, connection, updates, permissions, lines, tail, stderr } = startAgent(mock, root);

    const init = await agent.request(acp.methods.agent.initialize, {
      protocolVersion: 1,
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
    });
    expect(init.protocolVersion).toBe(1);
    expect(init.agentInfo?.name).toBe("garuda");
    const { sessionId } = await agent.request(acp.methods.agent.session.new, { cwd: root, mcpServers: [] });

    // A streamed prompt: text, a read, an edit the editor approves, more text.
    const first = await agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "Make the note final." }],
    });
    expect(first.stopReason).toBe("end_turn");
    const text = updates
      .flatMap((u) => (u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" ? [u.content.text] : []))
      .join("");
    expect(text).toContain("Let me read the notes first.");
    expect(text).toContain("The notes now say final.");
    expect(updates.filter((u) => u.sessionUpdate === "agent_message_chunk").length).toBeGreaterThanOrEqual(5);
    expect(permissions.map((p) => p.toolCall.toolCallId)).toEqual(["toolu_edit"]);
    expect(permissions[0]?.toolCall.content?.some((c) => c.type === "diff" && c.newText === "a final note\n")).toBe(
      true,
    );
    expect(readFileSync(join(root, "notes.txt"), "utf8")).toBe("a final note\n");
    // The read's lines as a fenced block, in the file's language, so a Markdown editor keeps them.
    const read = updates.find(
      (u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === "toolu_read" && u.status === "completed",
    );
    const readText =
      read?.sessionUpdate === "tool_call_update"
        ? (read.content ?? [])
            .map((c) => (c.type === "content" && c.content.type === "text" ? c.content.text : ""))
            .join("")
        : "";
    expect(readText).toBe("```txt\n     1\ta draft note\n```");
    // The mock answers only requests that carry the key from the editor's environment.
    expect(mock.requests.map((r) => r.path)).toEqual(["/v1/messages", "/v1/messages", "/v1/messages"]);

    // Cancel `sleep 60`: the prompt ends cancelled and the process is gone.
    const second = agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "Wait a minute." }],
    });
    const sleeping = await startedBelow(proc.pid, "sleep 60");
    // Shown as running while it runs, though it has printed nothing: not "pending" (which editors
    // show as waiting for approval) until its first line of output.
    const sleepUpdates = () =>
      updates.filter((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === "toolu_sleep");
    const running = await until(
      () => sleepUpdates().find((u) => u.sessionUpdate === "tool_call_update" && u.status === "in_progress"),
      "sleep 60 to show as running",
    );
    expect(running).toEqual({ sessionUpdate: "tool_call_update", toolCallId: "toolu_sleep", status: "in_progress" });
    expect(sleepUpdates()).toEqual([running]);
    expect(sleeping.filter(alive).length).toBeGreaterThan(0);
    await agent.notify(acp.methods.agent.session.cancel, { sessionId });
    expect((await second).stopReason).toBe("cancelled");
    expect(sleeping.filter(alive)).toEqual([]);
    expect(
      updates.some(
        (u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === "toolu_sleep" && u.status === "failed",
      ),
    ).toBe(true);
    expect(
      updates.some(
        (u) =>
          u.sessionUpdate === "agent_message_chunk" &&
          u.content.type === "text" &&
          u.content.text.includes("Garuda: $ sleep 60 cancelled."),
      ),
    ).toBe(true);

    // stdin closes while `sleep 62` runs: exit 0 and no child left.
    void agent
      .request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "Wait again." }] })
      .catch(() => {});
    const left = await startedBelow(proc.pid, "sleep 62");
    const children = descendants(proc.pid);
    proc.stdin.end();
    expect(await proc.exited).toBe(0);
    expect(left.length).toBeGreaterThan(0);
    expect([...left, ...children].filter(alive)).toEqual([]);
    connection.close();

    // Only protocol messages on stdout, one per line.
    expect(lines.length).toBeGreaterThan(10);
    expectOnlyProtocol(lines, tail);
    expect(await stderr).not.toContain('"jsonrpc"');
  }, 120_000);

  test("Zed's terminal output: a sandboxed command that prints over seconds streams to " +
    "the editor while it runs", async () => {
    const command = "for i in 1 2 3 4 5 6; do echo tick $i; sleep 0.5; done";
    await using mock = startMockAnthropic({
      apiKey: "sk-ant-process-test",
      script: [
        { steps: [{ type: "tool_use", name: "bash", id: "toolu_ticks", input: { command } }] },
        { steps: [{ type: "text", text: "It ticked." }] },
      ],
    });
    const root = makeTempDir("root-", { under: work });
    const { proc, agent, connection, updates, lines, tail } = startAgent(mock, root);
    await agent.request(acp.methods.agent.initialize, {
      protocolVersion: 1,
      clientCapabilities: { terminal: true, _meta: { terminal_output: true } },
    });
    const created = await agent.request(acp.methods.agent.session.new, { cwd: root, mcpServers: [] });
    const model = created.configOptions?.find((option) => option.id === "model");
    expect(model?.currentValue).toBe("claude-sonnet-5");

    const arrived: { at: number; data?: string; exit?: unknown }[] = [];
    const seen = new Set<acp.SessionUpdate>();
    const watch = setInterval(() => {
      for (const update of updates) {
        if (seen.has(update)) continue;
        seen.add(update);
        if (update.sessionUpdate !== "tool_call_update" || update.toolCallId !== "toolu_ticks") continue;
        const output = update._meta?.terminal_output as { data: string } | undefined;
        if (output) arrived.push({ at: performance.now(), data: output.data });
        if (update._meta?.terminal_exit) arrived.push({ at: performance.now(), exit: update._meta.terminal_exit });
      }
    }, 5);
    const started = performance.now();
    const done = await agent.request(acp.methods.agent.session.prompt, {
      sessionId: created.sessionId,
      prompt: [{ type: "text", text: "Tick." }],
    });
    await Bun.sleep(20);
    clearInterval(watch);
    expect(done.stopReason).toBe("end_turn");
    const first = arrived[0];
    const exit = arrived.find((entry) => entry.exit !== undefined);
    expect(first?.data).toBe("tick 1\n");
    expect(exit?.exit).toEqual({ terminal_id: "toolu_ticks", exit_code: 0, signal: null });
    // The first line is on screen seconds before the command ends (it takes about 3 s).
    expect((exit?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThan(2_000);
    expect((first?.at ?? Number.POSITIVE_INFINITY) - started).toBeLessThan(2_000);
    expect(arrived.flatMap((entry) => (entry.data !== undefined ? [entry.data] : [])).join("")).toBe(
      "tick 1\ntick 2\ntick 3\ntick 4\ntick 5\ntick 6\n",
    );
    const call = updates.find((u) => u.sessionUpdate === "tool_call" && u.toolCallId === "toolu_ticks");
    expect(call?.sessionUpdate === "tool_call" && call.content).toEqual([
      { type: "terminal", terminalId: "toolu_ticks" },
    ]);
    // The editor never ran it: no terminal/create request came to the client.
    expect(lines.some((line) => line.includes('"terminal/create"'))).toBe(false);
    expect(updates.some((u) => u.sessionUpdate === "usage_update")).toBe(true);
    proc.stdin.end();
    expect(await proc.exited).toBe(0);
    connection.close();
    expectOnlyProtocol(lines, tail);
  }, 60_000);

  test("a deprecated model: the SDK's warning is one Garuda: line per session, and stderr stays empty", async () => {
    await using mock = startMockAnthropic({
      apiKey: "sk-ant-process-test",
      script: [
        { steps: [{ type: "text", text: "One." }] },
        { steps: [{ type: "text", text: "Two." }] },
        { steps: [{ type: "text", text: "Three." }] },
      ],
    });
    const root = makeTempDir("root-", { under: work });
    // A retired model is no longer in the catalog: models.json names it, as the refusal says to.
    const home = makeTempDir("home-", { under: work });
    mkdirSync(join(home, ".garuda"), { recursive: true });
    writeFileSync(join(home, ".garuda", "models.json"), JSON.stringify({ models: { "claude-sonnet-4-5": {} } }));
    const { proc, agent, connection, updates, lines, tail, stderr } = startAgent(mock, root, "claude-sonnet-4-5", home);
    await agent.request(acp.methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
    const { sessionId } = await agent.request(acp.methods.agent.session.new, { cwd: root, mcpServers: [] });
    for (const text of ["one", "two", "three"]) {
      expect(
        (await agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] }))
          .stopReason,
      ).toBe("end_turn");
    }
    expect(mock.requests.map((r) => r.body?.model)).toEqual([
      "claude-sonnet-4-5",
      "claude-sonnet-4-5",
      "claude-sonnet-4-5",
    ]);
    const said = updates
      .flatMap((u) => (u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" ? [u.content.text] : []))
      .join("");
    expect(said.split("Garuda: the Anthropic SDK warns: The model 'claude-sonnet-4-5' is deprecated").length).toBe(2);
    proc.stdin.end();
    expect(await proc.exited).toBe(0);
    connection.close();
    expectOnlyProtocol(lines, tail);
    expect(await stderr).toBe("");
  }, 60_000);

  test("stdin closed right behind the first session/new: what it started (the sandbox " +
    "probe, the runtime) is not left running, exit 0", async () => {
    await using mock = startMockAnthropic({ apiKey: "sk-ant-process-test", script: [] });
    const root = makeTempDir("root-", { under: work });
    // The probe's bwrap runs last a few milliseconds, which sampling the agent's children missed
    // now and then on a busy machine: a bwrap first on PATH writes its pid, then is the real one.
    const bin = makeTempDir("bin-", { under: work });
    const started = join(bin, "started");
    writeFileSync(join(bin, "bwrap"), `#!/bin/sh\necho $$ >> '${started}'\nexec '${Bun.which("bwrap")}' "$@"\n`, {
      mode: 0o755,
    });
    const probed = () =>
      existsSync(started) ? readFileSync(started, "utf8").split("\n").filter(Boolean).map(Number) : [];
    const { proc, agent, connection, lines, tail } = startAgentAt(
      binary,
      mock,
      root,
      work,
      undefined,
      undefined,
      {},
      {
        PATH: `${bin}:${process.env.PATH}`,
      },
    );
    await agent.request(acp.methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
    // Every process the agent starts from now on (the probe's trial run, at the first session/new).
    const seen = new Set<number>();
    const sampler = setInterval(() => {
      for (const pid of descendants(proc.pid)) seen.add(pid);
    }, 1);
    // stdin closes while session/new prepares the session, once the probe has started a process
    // (bwrap --help, its trial run): whatever it left must not outlive the agent.
    void agent.request(acp.methods.agent.session.new, { cwd: root, mcpServers: [] }).catch(() => {});
    await until(() => probed().length > 0 || undefined, "the sandbox probe to start a process");
    proc.stdin.end();
    expect(await proc.exited).toBe(0);
    clearInterval(sampler);
    const left = () => [...seen, ...probed()].filter(alive);
    // The agent SIGKILLs what is left as it exits; a killed process can take a moment to be gone.
    await until(() => (left().length === 0 ? true : undefined), "the probe's processes to end", 2_000).catch(() => {});
    expect(left()).toEqual([]);
    connection.close();
    expect(tail.partial).toBe("");
    expect(JSON.parse(lines[0] as string).id).toBe(0);
  }, 60_000);

  test("SIGTERM: every runtime closes at once, the command is killed, exit 143", async () => {
    await using mock = startMockAnthropic({
      apiKey: "sk-ant-process-test",
      script: [{ steps: [{ type: "tool_use", name: "bash", id: "toolu_sleep_3", input: { command: "sleep 63" } }] }],
    });
    const root = makeTempDir("root-", { under: work });
    const { proc, agent, connection, lines, tail } = startAgent(mock, root);
    await agent.request(acp.methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
    const { sessionId } = await agent.request(acp.methods.agent.session.new, { cwd: root, mcpServers: [] });
    void agent
      .request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "Sleep." }] })
      .catch(() => {});
    const sleeping = await startedBelow(proc.pid, "sleep 63");
    const children = descendants(proc.pid);
    const started = Date.now();
    proc.kill("SIGTERM");
    expect(await proc.exited).toBe(143);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect([...sleeping, ...children].filter(alive)).toEqual([]);
    connection.close();
    expectOnlyProtocol(lines, tail);
  }, 60_000);
  test("bad input does not brick a session: 100,000 levels, a 50 MB argument, names " +
    "with ESC, a newline and U+202E", async () => {
    const deepJson = `{"path":${"[".repeat(100_000)}${"]".repeat(100_000)}}`;
    const bigJson = JSON.stringify({ path: "big.txt", content: "z".repeat(50 * 1024 * 1024) });
    const names = ["esc\u001b[2Jname.txt", "new\nline.txt", "rtl\u202Etxt.exe", "plain.txt"];
    await using mock = startMockAnthropic({
      apiKey: "sk-ant-process-test",
      script: [
        { steps: [{ type: "tool_use", name: "read_file", id: "toolu_deep", json: deepJson, fragments: 4 }] },
        { steps: [{ type: "text", text: "Sent too deep." }] },
        { steps: [{ type: "tool_use", name: "write_file", id: "toolu_big", json: bigJson, fragments: 20 }] },
        { steps: [{ type: "text", text: "Sent too much." }] },
        {
          steps: names.map((path, index) => ({
            type: "tool_use" as const,
            name: "read_file",
            id: `toolu_name_${index}`,
            input: { path },
          })),
        },
        { steps: [{ type: "text", text: "Read: esc\u001b[31m red, rtl\u202Eexe." }] },
      ],
    });
    const root = makeTempDir("root-", { under: work });
    for (const name of names) writeFileSync(join(root, name), "text with \u001b[2J and \u202E in it\n");
    const { proc, agent, connection, updates, lines, tail } = startAgent(mock, root);
    await agent.request(acp.methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
    const { sessionId } = await agent.request(acp.methods.agent.session.new, { cwd: root, mcpServers: [] });
    const prompt = (text: string) =>
      agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] });
    const failedText = (id: string) =>
      updates
        .flatMap((u) =>
          u.sessionUpdate === "tool_call_update" && u.toolCallId === id && u.status === "failed"
            ? (u.content ?? [])
            : [],
        )
        .map((c) => (c.type === "content" && c.content.type === "text" ? c.content.text : ""))
        .join("");

    expect((await prompt("Deep.")).stopReason).toBe("end_turn");
    expect(failedText("toolu_deep")).toContain("nested 100,001 levels deep");
    expect((await prompt("Big.")).stopReason).toBe("end_turn");
    expect(failedText("toolu_big")).toContain("characters of JSON, more than the 1,000,000 Garuda takes");
    expect((await prompt("Names.")).stopReason).toBe("end_turn");
    const calls = updates.filter((u) => u.sessionUpdate === "tool_call" && u.toolCallId.startsWith("toolu_name_"));
    expect(calls.map((u) => (u.sessionUpdate === "tool_call" ? (u.locations ?? []).map((l) => l.path) : []))).toEqual([
      [],
      [],
      [],
      [join(root, "plain.txt")],
    ]);

    // Every line the editor read: small, and no ESC or U+202E in it.
    for (const line of lines) {
      expect(Buffer.byteLength(line)).toBeLessThan(100_000);
      expect(line).not.toContain("\\u001b");
      expect(line).not.toContain("\u202E");
    }
    proc.stdin.end();
    expect(await proc.exited).toBe(0);
    connection.close();
    expectOnlyProtocol(lines, tail);
  }, 120_000);

  test("history: a second process lists and loads the session of one that exited, " +
    "replays it, continues it; a third is refused while the second has it", async () => {
    await using mock = startMockAnthropic({
      apiKey: "sk-ant-process-test",
      script: [
        {
          steps: [
            { type: "text", text: "Reading it." },
            { type: "tool_use", name: "read_file", id: "toolu_hist_read", input: { path: "notes.txt" } },
          ],
        },
        { steps: [{ type: "text", text: "It is a draft.", fragments: 3 }] },
        { steps: [{ type: "text", text: "Still a draft." }] },
      ],
    });
    const root = makeTempDir("root-", { under: work });
    writeFileSync(join(root, "notes.txt"), "a draft note\n");
    const first = startAgent(mock, root);
    const init = await first.agent.request(acp.methods.agent.initialize, {
      protocolVersion: 1,
      clientCapabilities: {},
    });
    expect(init.agentCapabilities).toMatchObject({
      loadSession: true,
      sessionCapabilities: { list: {}, resume: {}, close: {}, delete: {} },
    });
    const { sessionId } = await first.agent.request(acp.methods.agent.session.new, { cwd: root, mcpServers: [] });
    expect(
      (
        await first.agent.request(acp.methods.agent.session.prompt, {
          sessionId,
          prompt: [{ type: "text", text: "What do the notes say?" }],
        })
      ).stopReason,
    ).toBe("end_turn");
    const live = [...first.updates];
    expect(live.some((u) => u.sessionUpdate === "session_info_update" && u.title === "What do the notes say?")).toBe(
      true,
    );
    first.proc.stdin.end();
    expect(await first.proc.exited).toBe(0);
    first.connection.close();

    // A kill -9 in the middle of a write leaves a torn last line: the next process says so and goes on.
    const { findSessionFile } = await import("../../src/store/sessionCatalog.ts");
    const file = findSessionFile(join(first.home, ".garuda", "sessions"), sessionId) as string;
    appendFileSync(file, '{"t":"2026-01-01T00:00:00Z","type":"notice","level":"info","te');

    const second = startAgent(mock, root, "claude-sonnet-5", first.home);
    await second.agent.request(acp.methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
    const listed = await second.agent.request(acp.methods.agent.session.list, {});
    expect(listed.sessions).toEqual([
      { sessionId, cwd: realpathSync(root), title: "What do the notes say?", updatedAt: expect.any(String) },
    ]);
    const loaded = await second.agent.request(acp.methods.agent.session.load, { sessionId, cwd: root, mcpServers: [] });
    expect(loaded.modes?.currentModeId).toBe("build");
    const replayed = second.updates.filter((u) => u.sessionUpdate !== "available_commands_update");
    expect(replayed[0]).toEqual({
      sessionUpdate: "user_message_chunk",
      content: { type: "text", text: "What do the notes say?" },
      messageId: expect.any(String),
    });
    const liveCall = live.find((u) => u.sessionUpdate === "tool_call");
    expect(replayed.find((u) => u.sessionUpdate === "tool_call") as unknown).toEqual(liveCall);
    const liveEnd = live.find((u) => u.sessionUpdate === "tool_call_update" && u.status === "completed");
    expect(replayed.find((u) => u.sessionUpdate === "tool_call_update") as unknown).toEqual(liveEnd);
    const said = (updates: acp.SessionUpdate[]) =>
      updates
        .flatMap((u) =>
          u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" ? [u.content.text] : [],
        )
        .join("");
    expect(said(replayed)).toContain("Reading it.It is a draft.");
    expect(said(replayed)).toContain("Garuda: 1 line of the session file could not be read and was skipped (line ");

    // A third process may not write the session the second has open: a clear error, nothing replayed.
    const third = startAgent(mock, root, "claude-sonnet-5", first.home);
    await third.agent.request(acp.methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
    let refused: acp.RequestError | undefined;
    try {
      await third.agent.request(acp.methods.agent.session.load, { sessionId, cwd: root, mcpServers: [] });
    } catch (error) {
      refused = error as acp.RequestError;
    }
    expect(refused?.message).toContain(`session ${sessionId} is open in another Garuda now`);
    expect(third.updates.filter((u) => u.sessionUpdate !== "available_commands_update")).toEqual([]);

    // The second continues it: the model gets the earlier turn.
    expect(
      (
        await second.agent.request(acp.methods.agent.session.prompt, {
          sessionId,
          prompt: [{ type: "text", text: "And now?" }],
        })
      ).stopReason,
    ).toBe("end_turn");
    expect(JSON.stringify(mock.requests.at(-1)?.body)).toContain("What do the notes say?");
    expect(JSON.stringify(mock.requests.at(-1)?.body)).toContain("It is a draft.");
    // Killed with SIGKILL, the second holds nothing: the third loads it now.
    second.proc.kill("SIGKILL");
    await second.proc.exited;
    second.connection.close();
    await third.agent.request(acp.methods.agent.session.load, { sessionId, cwd: root, mcpServers: [] });
    expect(said(third.updates)).toContain("Still a draft.");
    third.proc.stdin.end();
    expect(await third.proc.exited).toBe(0);
    third.connection.close();
    for (const run of [first, second, third]) expect(run.tail.partial).toBe("");
    expectOnlyProtocol(third.lines, third.tail);
  }, 120_000);
});
