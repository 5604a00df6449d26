// `garuda run` from source over pipes, against the mock Anthropic server: the answer on stdout,
// JSON lines with --format json, approvals only through --allow, and the exit codes scripts
// rely on (0 done, 1 error, 2 limit or a wrong command line, 3 denied, 129/130/143 a signal,
// 141 a closed stdout).
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startMockAnthropic } from "../support/mockAnthropic.ts";
import { alive, chatEnv, ENTRY, runPipedIn, startedBelow, workspace } from "../support/chatHarness.ts";

const editScript = () => [
  {
    steps: [
      { type: "text" as const, text: "Reading." },
      { type: "tool_use" as const, name: "read_file", id: "toolu_read", input: { path: "notes.txt" } },
    ],
  },
  {
    steps: [
      {
        type: "tool_use" as const,
        name: "edit_file",
        id: "toolu_edit",
        input: { path: "notes.txt", old_string: "draft", new_string: "final" },
      },
    ],
  },
  { steps: [{ type: "text" as const, text: "Done." }] },
];

describe("garuda run", () => {
  test("--format json: a start line, the turn's events, and a result line; exit 0", async () => {
    await using mock = startMockAnthropic({
      script: [
        {
          steps: [
            { type: "text", text: "Let me look.", fragments: 2 },
            { type: "tool_use", name: "bash", id: "toolu_ls", input: { command: "echo hi from the sandbox" } },
          ],
        },
        { steps: [{ type: "text", text: "All good." }] },
      ],
    });
    using ws = workspace();
    const run = await runPipedIn(["run", "--format", "json", "Check", "the", "project"], {
      cwd: ws.root,
      env: chatEnv(mock, ws.home),
    });
    expect(run.code).toBe(0);
    const lines = run.stdout
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown> & { type: string });
    expect(lines[0]).toMatchObject({ type: "start", model: "claude-sonnet-5", mode: "build" });
    const types = lines.map((line) => line.type);
    expect(types).toContain("text_delta");
    expect(types.filter((type) => type === "text_delta").length).toBeGreaterThanOrEqual(3);
    const call = lines.find((line) => line.type === "tool_call");
    expect(call).toMatchObject({
      callId: "toolu_ls",
      tool: "bash",
      title: "$ echo hi from the sandbox",
      kind: "execute",
    });
    const result = lines.find((line) => line.type === "tool_result");
    expect(result).toMatchObject({ callId: "toolu_ls", status: "completed" });
    expect(String(result?.output)).toContain("hi from the sandbox");
    const last = lines.at(-1);
    expect(last).toMatchObject({
      type: "result",
      stopReason: "done",
      exitCode: 0,
      text: "Let me look.\nAll good.",
      denied: [],
    });
    expect(typeof last?.session).toBe("string");
    // The prompt, as the words after `run`.
    expect(JSON.stringify(mock.requests[0]?.body?.messages)).toContain("Check the project");
  }, 30_000);

  test("text: the answer alone on stdout, the activity on stderr; a denied edit exits 3 and says what", async () => {
    await using mock = startMockAnthropic({ script: editScript() });
    using ws = workspace();
    writeFileSync(join(ws.root, "notes.txt"), "a draft note\n");
    const run = await runPipedIn(["run", "Make the note final"], { cwd: ws.root, env: chatEnv(mock, ws.home) });
    expect(run.code).toBe(3);
    expect(run.stdout).toBe("Reading.\nDone.\n");
    expect(run.stderr).toContain("● Edit notes.txt");
    expect(run.stderr).toContain("denied (no one can approve during `garuda run`)");
    expect(run.stderr).toContain("Edit notes.txt: needs an approval");
    // The narrowest rule that would have allowed the call, as the engine proposes it.
    expect(run.stderr).toContain("Rules that would allow them: --allow 'edit_file(./notes.txt)'");
    expect(readFileSync(join(ws.root, "notes.txt"), "utf8")).toBe("a draft note\n");
  }, 30_000);

  test("--allow adds session rules: the edit runs without a question, exit 0", async () => {
    await using mock = startMockAnthropic({ script: editScript() });
    using ws = workspace();
    writeFileSync(join(ws.root, "notes.txt"), "a draft note\n");
    const run = await runPipedIn(
      [
        "run",
        "--allow",
        "bash(git status)",
        "--allow",
        "edit_file(./notes.txt)",
        "Make the note final",
        "--format",
        "json",
      ],
      { cwd: ws.root, env: chatEnv(mock, ws.home) },
    );
    expect(run.code).toBe(0);
    expect(readFileSync(join(ws.root, "notes.txt"), "utf8")).toBe("a final note\n");
    const last = JSON.parse(run.stdout.trimEnd().split("\n").at(-1) as string);
    expect(last).toMatchObject({ type: "result", stopReason: "done", exitCode: 0, denied: [] });
  }, 30_000);

  test("a limit exits 2; a model error exits 1; a bad --allow rule exits 2; no task " +
    "exits 1; every message says `garuda run:`", async () => {
    using ws = workspace();
    {
      // Cut at the output limit again and again: the runtime says "go on" three times, then stops.
      await using mock = startMockAnthropic({
        loop: true,
        script: [{ stopReason: "max_tokens", steps: [{ type: "text", text: "Cut" }] }],
      });
      const run = await runPipedIn(["run", "Write a lot"], { cwd: ws.root, env: chatEnv(mock, ws.home) });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain("max_tokens");
    }
    {
      await using mock = startMockAnthropic({ script: [{ status: 401 }] });
      const run = await runPipedIn(["run", "--format", "json", "Hi"], { cwd: ws.root, env: chatEnv(mock, ws.home) });
      expect(run.code).toBe(1);
      const lines = run.stdout
        .trimEnd()
        .split("\n")
        .map((line) => JSON.parse(line));
      expect(lines.some((line) => line.type === "error")).toBe(true);
      expect(lines.at(-1)).toMatchObject({ type: "result", stopReason: "error", exitCode: 1 });
      expect(lines.find((line) => line.type === "error")?.message).not.toStartWith("garuda");
      // The same prefix as every other message of the run.
      expect(run.stderr).toStartWith("garuda run: ");
      expect(run.stderr).not.toMatch(/^garuda: /m);
    }
    {
      await using mock = startMockAnthropic({ script: [] });
      const bad = await runPipedIn(["run", "--allow", "bash(", "Hi"], { cwd: ws.root, env: chatEnv(mock, ws.home) });
      expect(bad.code).toBe(2);
      expect(bad.stderr).toStartWith('garuda run: --allow "bash("');
      const none = await runPipedIn(["run"], { cwd: ws.root, env: chatEnv(mock, ws.home), stdin: "" });
      expect(none.code).toBe(1);
      expect(none.stderr).toContain("no task");
      const chatOnly = await runPipedIn(["run", "/undo"], { cwd: ws.root, env: chatEnv(mock, ws.home) });
      expect(chatOnly.code).toBe(1);
      expect(chatOnly.stderr).toContain("/undo is a chat command");
      expect(mock.requests.length).toBe(0);
    }
    {
      // No model set up at all: the setup hint, exit 1.
      const run = await runPipedIn(["run", "Hi"], {
        cwd: ws.root,
        env: { PATH: process.env.PATH ?? "", HOME: ws.home },
      });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain("garuda setup");
    }
  }, 60_000);

  test("the task from stdin", async () => {
    await using mock = startMockAnthropic({ script: [{ steps: [{ type: "text", text: "From stdin." }] }] });
    using ws = workspace();
    const run = await runPipedIn(["run"], {
      cwd: ws.root,
      env: chatEnv(mock, ws.home),
      stdin: "Summarize the README\n",
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("From stdin.\n");
    expect(JSON.stringify(mock.requests[0]?.body?.messages)).toContain("Summarize the README");
  }, 30_000);

  test("SIGINT stops the turn: the command is killed, the call named, exit 130", async () => {
    await using mock = startMockAnthropic({
      script: [{ steps: [{ type: "tool_use", name: "bash", id: "toolu_sleep", input: { command: "sleep 61" } }] }],
    });
    using ws = workspace();
    const child = Bun.spawn([process.execPath, ENTRY, "run", "--format", "json", "Sleep"], {
      cwd: ws.root,
      env: chatEnv(mock, ws.home),
      stdout: "pipe",
      stderr: "pipe",
    });
    const stdout = new Response(child.stdout).text();
    const sleeping = await startedBelow(child.pid, "sleep 61");
    child.kill("SIGINT");
    expect(await child.exited).toBe(130);
    expect(sleeping.filter(alive)).toEqual([]);
    const lines = (await stdout)
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines.some((line) => line.type === "notice" && line.text === "$ sleep 61 cancelled.")).toBe(true);
    expect(lines.at(-1)).toMatchObject({ type: "result", stopReason: "cancelled", exitCode: 130 });
  }, 30_000);

  test("--help documents the exit codes", async () => {
    using ws = workspace();
    const child = Bun.spawnSync([process.execPath, ENTRY, "run", "--help"], {
      cwd: ws.root,
      env: { PATH: process.env.PATH ?? "", HOME: ws.home },
    });
    const text = child.stdout.toString();
    expect(child.exitCode).toBe(0);
    for (const line of [
      "0    done",
      "1    error",
      "2    a limit ended the turn",
      "3    done, but a permission was denied",
      "129  hung up",
      "130  interrupted",
      "141  stdout was closed",
      "143  terminated",
    ]) {
      expect(text).toContain(line);
    }
    expect(text).toContain("--allow");
    expect(text).toContain("--format");
  });

  test("an answer that broke off and was asked again: stdout and result.text hold only the final answer", async () => {
    const script = () => [
      { steps: [{ type: "text" as const, text: "The answer is 4" }, { type: "close" as const }] },
      { steps: [{ type: "text" as const, text: "The answer is 42." }] },
    ];
    using ws = workspace();
    {
      await using mock = startMockAnthropic({ script: script() });
      const run = await runPipedIn(["run", "q"], { cwd: ws.root, env: chatEnv(mock, ws.home) });
      expect(run.code).toBe(0);
      expect(run.stdout).toBe("The answer is 42.\n");
      expect(run.stderr).toContain("What it wrote so far is left out of the answer.");
    }
    {
      await using mock = startMockAnthropic({ script: script() });
      const run = await runPipedIn(["run", "--format", "json", "q"], { cwd: ws.root, env: chatEnv(mock, ws.home) });
      expect(run.code).toBe(0);
      const lines = run.stdout
        .trimEnd()
        .split("\n")
        .map((line) => JSON.parse(line));
      // The deltas stream as they come; the retry line tells a reader the partial text is void.
      expect(lines.some((line) => line.type === "model_retry" && line.partial === true)).toBe(true);
      expect(lines.at(-1)).toMatchObject({ type: "result", stopReason: "done", text: "The answer is 42." });
    }
  }, 30_000);

  test("SIGTERM exits 143 and SIGHUP 129, as --help says; the result line says the same", async () => {
    for (const [signal, code] of [
      ["SIGTERM", 143],
      ["SIGHUP", 129],
    ] as const) {
      await using mock = startMockAnthropic({
        script: [{ steps: [{ type: "tool_use", name: "bash", id: "toolu_sleep", input: { command: "sleep 62" } }] }],
      });
      using ws = workspace();
      const child = Bun.spawn([process.execPath, ENTRY, "run", "--format", "json", "Sleep"], {
        cwd: ws.root,
        env: chatEnv(mock, ws.home),
        stdout: "pipe",
        stderr: "pipe",
      });
      const stdout = new Response(child.stdout).text();
      const sleeping = await startedBelow(child.pid, "sleep 62");
      child.kill(signal);
      expect({ signal, code: await child.exited }).toEqual({ signal, code });
      expect(sleeping.filter(alive)).toEqual([]);
      const lines = (await stdout)
        .trimEnd()
        .split("\n")
        .map((line) => JSON.parse(line));
      expect(lines.at(-1)).toMatchObject({ type: "result", stopReason: "cancelled", exitCode: code });
    }
  }, 40_000);

  test("a closed stdout (`| head -1`) stops the run quietly: no stack trace, exit 141", async () => {
    using ws = workspace();
    const script = () => [
      {
        steps: [
          { type: "text" as const, text: "First line." },
          { type: "tool_use" as const, name: "bash", id: "toolu_wait", input: { command: "sleep 1" } },
        ],
      },
      { steps: [{ type: "text" as const, text: "Second line." }] },
    ];
    for (const format of ["json", "text"]) {
      await using mock = startMockAnthropic({ script: script() });
      const shell = `"$0" "$1" run --format ${format} go 2>"$2" | head -1; echo "exit \${PIPESTATUS[0]}"`;
      const child = Bun.spawn(["bash", "-c", shell, process.execPath, ENTRY, join(ws.home, "stderr.txt")], {
        cwd: ws.root,
        env: chatEnv(mock, ws.home),
        stdout: "pipe",
      });
      const [out] = await Promise.all([new Response(child.stdout).text(), child.exited]);
      const [first, exit] = out.trimEnd().split("\n");
      expect(format === "json" ? JSON.parse(first as string).type : first).toBe(
        format === "json" ? "start" : "First line.",
      );
      expect({ format, exit }).toEqual({ format, exit: "exit 141" });
      const stderr = readFileSync(join(ws.home, "stderr.txt"), "utf8");
      expect(stderr).not.toContain("EPIPE");
      expect(stderr).not.toContain("    at ");
    }
  }, 40_000);

  test("a failed command shows the last lines of its output (where the error usually " +
    "is) under its result", async () => {
    const command = "for i in 1 2 3 4 5 6 7; do echo out$i; done; echo 'error: cannot find module foo' >&2; exit 3";
    await using mock = startMockAnthropic({
      script: [
        { steps: [{ type: "tool_use", name: "bash", id: "toolu_fail", input: { command } }] },
        { steps: [{ type: "text", text: "It failed." }] },
      ],
    });
    using ws = workspace();
    const run = await runPipedIn(["run", "Build"], { cwd: ws.root, env: chatEnv(mock, ws.home) });
    expect(run.code).toBe(0);
    const lines = run.stderr.split("\n");
    const result = lines.findIndex((line) => line.includes("✗ Exit code 3"));
    expect(result).toBeGreaterThan(-1);
    expect(lines.slice(result + 1, result + 6).map((line) => line.trim())).toEqual([
      "out4",
      "out5",
      "out6",
      "out7",
      "error: cannot find module foo",
    ]);
  }, 30_000);
  test("names with ESC, a newline or U+202E: never raw on stdout or stderr; --format " +
    "json leaves them out of locations", async () => {
    const names = ["esc\u001b[2Jname.txt", "new\nline.txt", "rtl\u202Etxt.exe", "plain.txt"];
    const script = () => [
      {
        steps: names.map((path, index) => ({
          type: "tool_use" as const,
          name: "read_file",
          id: `toolu_${index}`,
          input: { path },
        })),
      },
      { steps: [{ type: "text" as const, text: "Read: esc\u001b[31m red, rtl\u202Eexe." }] },
    ];
    using ws = workspace();
    for (const name of names) writeFileSync(join(ws.root, name), "text with \u001b[2J and \u202E in it\n");
    {
      await using mock = startMockAnthropic({ script: script() });
      const run = await runPipedIn(["run", "Read the files"], { cwd: ws.root, env: chatEnv(mock, ws.home) });
      expect(run.code).toBe(0);
      expect(run.stdout).toContain("esc⟨U+001B⟩[31m red, rtl⟨U+202E⟩exe.");
      expect(run.stderr).toContain("Read esc⟨U+001B⟩[2Jname.txt");
      expect(run.stderr).toContain("Read new ↵ line.txt");
      for (const out of [run.stdout, run.stderr]) {
        expect(out).not.toContain("\u001b");
        expect(out).not.toContain("\u202E");
      }
    }
    {
      await using mock = startMockAnthropic({ script: script() });
      const run = await runPipedIn(["run", "--format", "json", "Read the files"], {
        cwd: ws.root,
        env: chatEnv(mock, ws.home),
      });
      const calls = run.stdout
        .trimEnd()
        .split("\n")
        .map((line) => JSON.parse(line))
        .filter((line) => line.type === "tool_call");
      // Negative control: the plain name is a location.
      expect(calls.map((call) => call.locations.map((l: { path: string }) => l.path))).toEqual([
        [],
        [],
        [],
        [join(ws.root, "plain.txt")],
      ]);
    }
  }, 30_000);
});
