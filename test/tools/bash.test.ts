// The bash tool on the host executor: result text, stdin, timeout, cancel (the whole process
// tree), the output cap, throttled progress, `cd <root> &&`, titles and permission targets.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { bashTool } from "../../src/tools/bash.ts";
import { HeadTail, ProgressThrottle, stripCdRoot } from "../../src/tools/commandOutput.ts";
import { eventually, marker, sleepers } from "../support/sandboxSupport.ts";
import { type ContextRecord, type Workspace, call, execContext, workspace } from "../support/execFixtures.ts";

let ws: Workspace;
beforeAll(async () => {
  ws = await workspace("host");
});
afterAll(async () => {
  await ws.dispose();
});

const bash = bashTool();

describe("bash: result", () => {
  test("exit code first, then stdout and stderr together; a non-zero exit is an error", async () => {
    const result = await call(bash, { command: "echo out; sleep 0.2; echo err >&2; exit 3" }, execContext(ws));
    expect(result.output).toBe("Exit code: 3\nout\nerr");
    expect(result.isError).toBe(true);
    expect(result.summary).toBe("Exit code 3");
    const ok = await call(bash, { command: "true" }, execContext(ws));
    expect(ok.output).toBe("Exit code: 0\n(no output)");
    expect(ok.isError).toBe(false);
  });

  test("runs in the project folder, with stdin closed (a reader gets end-of-file at once)", async () => {
    const started = performance.now();
    const result = await call(bash, { command: "pwd; cat; echo after-cat" }, execContext(ws));
    expect(result.output).toBe(`Exit code: 0\n${ws.root}\nafter-cat`);
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  test("terminal escapes and carriage-return redraws are cleaned from the output", async () => {
    const result = await call(
      bash,
      { command: "printf '\\033[31mred\\033[0m\\n'; printf '10%%\\r50%%\\r100%%\\n'" },
      execContext(ws),
    );
    expect(result.output).toBe("Exit code: 0\nred\n100%");
  });
});

describe("bash: timeout and cancel", () => {
  test("a command past timeout_ms is stopped with its children, and the result says so", async () => {
    const tag = marker();
    const started = performance.now();
    const result = await call(bash, { command: `echo begun; sleep ${tag}`, timeout_ms: 1_000 }, execContext(ws));
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(result.output).toStartWith(
      "Exit code: none. The command timed out after 1 s and was stopped, with every process it started.\nbegun",
    );
    expect(result.output).toContain("[Garuda: for servers and watchers use process_manager");
    expect(result.isError).toBe(true);
    expect(result.summary).toBe("Timed out");
    await eventually(() => sleepers(tag).length === 0);
  });

  test(
    "cancel kills the process group: a `sleep 60`-style command and a `setsid sleep " + "&` child are both gone",
    async () => {
      const tag = marker();
      const child = marker();
      const controller = new AbortController();
      const pending = call(
        bash,
        { command: `setsid sleep ${child} & sleep ${tag}` },
        execContext(ws, { signal: controller.signal }),
      );
      await eventually(() => sleepers(tag).length === 1 && sleepers(child).length === 1);
      controller.abort();
      const result = await pending;
      expect(result.output).toStartWith(
        "Exit code: none. The command was cancelled and stopped, with every process it started.",
      );
      expect(result.summary).toBe("Cancelled");
      await eventually(() => sleepers(tag).length === 0 && sleepers(child).length === 0);
    },
  );

  test("timeout_ms must be between 1,000 and 600,000", () => {
    expect(bash.input.safeParse({ command: "true", timeout_ms: 999 }).success).toBe(false);
    expect(bash.input.safeParse({ command: "true", timeout_ms: 600_001 }).success).toBe(false);
    expect(bash.input.safeParse({ command: "true", timeout_ms: 600_000 }).success).toBe(true);
  });
});

describe("bash: output cap", () => {
  test("a long output keeps its head and tail within 30,000 characters, with a note on the cut", async () => {
    const result = await call(bash, { command: "seq 1 200000" }, execContext(ws));
    const body = result.output.split("\n").slice(1).join("\n");
    expect(body.startsWith("1\n2\n3\n")).toBe(true);
    expect(body.endsWith("199999\n200000")).toBe(true);
    expect(body).toMatch(/\[… [\d,]+ characters of output cut here; 1,288,895 in all …\]/);
    expect(body.length).toBeLessThan(30_200);
    expect(body.length).toBeGreaterThan(29_000);
  });

  test("HeadTail counts what it dropped", () => {
    const kept = new HeadTail(10);
    for (const chunk of ["abc", "defgh", "ijklmnop", "qrst"]) kept.push(chunk);
    expect(kept.total).toBe(20);
    expect(kept.truncated).toBe(true);
    expect(kept.text()).toBe("abcde\n\n[… 10 characters of output cut here; 20 in all …]\n\npqrst");
    const small = new HeadTail(10);
    small.push("abc");
    expect(small.text()).toBe("abc");
  });
});

describe("bash: progress", () => {
  test("progress lines are throttled to one per 100 ms and show the latest lines", async () => {
    const record: ContextRecord = { progress: [], asked: [] };
    const command = "for i in $(seq 1 40); do echo line $i; sleep 0.01; done; sleep 0.3";
    const result = await call(bash, { command }, execContext(ws, {}, record));
    expect(result.isError).toBe(false);
    const times = record.progress.map((p) => p.at);
    expect(record.progress.length).toBeGreaterThanOrEqual(3);
    for (let i = 1; i < times.length; i++)
      expect((times[i] as number) - (times[i - 1] as number)).toBeGreaterThanOrEqual(95);
    for (const { text } of record.progress) {
      const lines = text.split("\n");
      expect(lines.length).toBeLessThanOrEqual(5);
      const numbers = lines.map((line) => Number(line.replace("line ", "")));
      for (let i = 1; i < numbers.length; i++) expect(numbers[i]).toBe((numbers[i - 1] as number) + 1);
    }
    // The trailing update shows the last lines once the output pauses.
    expect(record.progress.at(-1)?.text).toBe("line 36\nline 37\nline 38\nline 39\nline 40");
  });

  test("ProgressThrottle sends the first chunk at once and coalesces the rest (fake clock)", async () => {
    let clock = 0;
    const sent: string[] = [];
    const throttle = new ProgressThrottle((text) => sent.push(text), { intervalMs: 1_000_000, now: () => clock });
    throttle.push("a\n");
    throttle.push("b\n");
    clock = 10;
    throttle.push("c\n");
    expect(sent).toEqual(["a"]);
    throttle.stop();
    throttle.push("d\n");
    expect(sent).toEqual(["a"]);
  });
});

describe("bash: command text, title and permission", () => {
  test("a leading `cd <root> &&` is stripped: from the title, the permission target and what runs", async () => {
    const command = `cd ${ws.root} && pwd`;
    expect(stripCdRoot(command, ws.root)).toBe("pwd");
    expect(stripCdRoot(`cd "${ws.root}/"; ls`, ws.root)).toBe("ls");
    expect(stripCdRoot(`cd ${ws.root}/sub && ls`, ws.root)).toBe(`cd ${ws.root}/sub && ls`);
    expect(stripCdRoot("cd /elsewhere && ls", ws.root)).toBe("cd /elsewhere && ls");
    const plan = bash.plan({ command }, { root: ws.root, home: ws.home, sandbox: null, executor: ws.executor });
    expect(plan.info.title).toBe("$ pwd");
    const target = plan.permission.target;
    expect(target).toEqual({ kind: "command", command: "pwd", sandboxed: false });
    const result = await call(bash, { command }, execContext(ws));
    expect(result.output).toBe(`Exit code: 0\n${ws.root}`);
  });

  test("the title is one visible line; kind execute; no locations", () => {
    const { info } = bash.plan(
      { command: "echo a\necho b\u202e" },
      { root: ws.root, home: ws.home, sandbox: null, executor: ws.executor },
    );
    expect(info).toEqual({ title: "$ echo a ↵ echo b⟨U+202E⟩", kind: "execute", locations: [] });
  });

  test("sandboxed is true only with a working sandbox, a sandbox for the call, and no outside_sandbox", () => {
    const spec = {
      root: ws.root,
      home: ws.home,
      tmpDir: "/tmp",
      projectReadOnly: false,
      writePaths: [],
      protectedPaths: [],
      denyReadPaths: [],
      network: { mode: "none" as const },
    };
    const working = { ...ws.executor, sandbox: { available: true as const, kind: "bwrap" as const } };
    const sandboxed = (
      input: { command: string; outside_sandbox?: boolean },
      executor = working as typeof ws.executor,
      sandbox: typeof spec | null = spec,
    ) => {
      const target = bash.plan(input, { root: ws.root, home: ws.home, sandbox, executor }).permission.target;
      return target.kind === "command" ? target.sandboxed : undefined;
    };
    expect(sandboxed({ command: "ls" })).toBe(true);
    expect(sandboxed({ command: "ls", outside_sandbox: true })).toBe(false);
    expect(sandboxed({ command: "ls" }, ws.executor)).toBe(false); // no OS sandbox on this executor: every command asks
    expect(sandboxed({ command: "ls" }, working as typeof ws.executor, null)).toBe(false);
    const request = bash.plan(
      { command: "ls -la" },
      { root: ws.root, home: ws.home, sandbox: spec, executor: working as typeof ws.executor },
    ).permission;
    expect(request).toMatchObject({ tool: "bash", readOnly: false, preview: "ls -la" });
  });

  test(
    "run() runs the command and the sandbox its plan chose, the ones the permission " +
      "request named (control: a plan without a sandbox runs without one)",
    async () => {
      const spec = {
        root: ws.root,
        home: ws.home,
        tmpDir: "/tmp",
        projectReadOnly: false,
        writePaths: [],
        protectedPaths: [],
        denyReadPaths: [],
        network: { mode: "none" as const },
      };
      const ran: Array<{ command: string; sandbox: unknown }> = [];
      const recording = {
        ...ws.executor,
        sandbox: { available: true as const, kind: "bwrap" as const },
        run: async (request: { command: string; sandbox: unknown }) => {
          ran.push({ command: request.command, sandbox: request.sandbox });
          return {
            exitCode: 0,
            signal: null,
            output: "",
            truncated: false,
            timedOut: false,
            killed: false,
            durationMs: 1,
          };
        },
      } as unknown as typeof ws.executor;
      const planned = bash.plan(
        { command: `cd ${ws.root} && make` },
        { root: ws.root, home: ws.home, sandbox: spec, executor: recording },
      );
      expect(planned.permission.target).toEqual({ kind: "command", command: "make", sandboxed: true });
      // The run's context names no sandbox: what runs is still what was checked.
      await bash.run(planned, { ...execContext(ws, { sandbox: null }), executor: recording });
      expect(ran).toEqual([{ command: "make", sandbox: spec }]);
      const outside = bash.plan(
        { command: "make", outside_sandbox: true },
        { root: ws.root, home: ws.home, sandbox: spec, executor: recording },
      );
      await bash.run(outside, { ...execContext(ws), executor: recording });
      expect(ran[1]).toEqual({ command: "make", sandbox: null });
    },
  );
});
