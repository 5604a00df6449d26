// process_manager: start/list/output/stop on the real executor, the session's processes killed
// by the executor's shutdown, the per-action permission targets as the real engine decides them,
// and a sandboxed start with real bubblewrap.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createPermissionEngine } from "../../src/permission/engine.ts";
import type { Mode } from "../../src/core-types/mode.ts";
import { processManagerTool, type ProcessManagerInput } from "../../src/tools/processManager.ts";
import { MAX_RUNNING, ProcessTable } from "../../src/tools/processTable.ts";
import { describeSandbox, eventually, marker, sleepers } from "../support/sandboxSupport.ts";
import { type Workspace, call, execContext, workspace } from "../support/execFixtures.ts";

describe("process_manager on the host", () => {
  let ws: Workspace;
  beforeAll(async () => {
    ws = await workspace("host");
  });
  afterAll(async () => {
    await ws.dispose();
  });

  test("start, list, output and stop a long-running process", async () => {
    const tool = processManagerTool({ startWaitMs: 300 });
    const tag = marker();
    const ctx = execContext(ws);
    const started = await call(tool, { action: "start", command: `echo ready; sleep ${tag}` }, ctx);
    expect(started.isError).toBeUndefined();
    expect(started.output).toStartWith(`Started p1 (pid `);
    expect(started.output).toContain(`outside the sandbox): $ echo ready; sleep ${tag}. It keeps running`);
    expect(started.output).toContain("Output so far:\nready");
    expect(sleepers(tag)).toHaveLength(1);

    const listed = await call(tool, { action: "list" }, ctx);
    expect(listed.output).toMatch(
      new RegExp(
        `^p1 \\(pid \\d+, outside the sandbox\\): \\$ echo ready; sleep ` +
          `${tag.replace(".", "\\.")} — running for \\d+s$`,
      ),
    );
    expect(listed.summary).toBe("1 running, 1 in all");

    const output = await call(tool, { action: "output", id: "p1" }, ctx);
    expect(output.output).toContain("— running for");
    expect(output.output.endsWith("\nready")).toBe(true);

    const stopped = await call(tool, { action: "stop", id: "p1" }, ctx);
    expect(stopped.output).toStartWith("Stopped p1 (pid ");
    await eventually(() => sleepers(tag).length === 0);
    expect((await call(tool, { action: "list" }, ctx)).output).toEndWith("— stopped");
    expect((await call(tool, { action: "stop", id: "p1" }, ctx)).output).toContain("had already been stopped");
  });

  test("a process that exits at once is reported with its exit code and output", async () => {
    const tool = processManagerTool({ startWaitMs: 2_000 });
    const result = await call(tool, { action: "start", command: "echo broken config >&2; exit 2" }, execContext(ws));
    expect(result.isError).toBe(true);
    expect(result.output).toContain("exited with code 2 right after it started.");
    expect(result.output).toContain("broken config");
  });

  test("unknown ids and missing arguments are clear errors", async () => {
    const tool = processManagerTool();
    const unknown = await call(tool, { action: "output", id: "p9" }, execContext(ws));
    expect(unknown).toEqual({
      output: "There is no process p9. No process has been started in this session.",
      isError: true,
    });
    expect(tool.input.safeParse({ action: "start" }).success).toBe(false);
    expect(tool.input.safeParse({ action: "stop" }).success).toBe(false);
    expect(tool.input.safeParse({ action: "list" }).success).toBe(true);
  });

  test(`at most ${MAX_RUNNING} processes run at once`, async () => {
    const processes = new ProcessTable();
    const tool = processManagerTool({ processes, startWaitMs: 20 });
    const tag = marker();
    const ctx = execContext(ws);
    for (let i = 0; i < MAX_RUNNING; i++)
      expect((await call(tool, { action: "start", command: `sleep ${tag}` }, ctx)).isError).toBeUndefined();
    const refused = await call(tool, { action: "start", command: `sleep ${tag}` }, ctx);
    expect(refused.isError).toBe(true);
    expect(refused.output).toContain(`${MAX_RUNNING} processes are running already`);
    await processes.stopAll();
    await eventually(() => sleepers(tag).length === 0);
  });

  test("cancel while a start waits stops the new process again", async () => {
    const tool = processManagerTool({ startWaitMs: 10_000 });
    const tag = marker();
    const controller = new AbortController();
    const pending = call(
      tool,
      { action: "start", command: `sleep ${tag}` },
      execContext(ws, { signal: controller.signal }),
    );
    await eventually(() => sleepers(tag).length === 1);
    controller.abort();
    const result = await pending;
    expect(result.output).toMatch(
      /^Cancelled: p\d+ \(pid \d+, outside the sandbox\): \$ sleep [\d.]+ was stopped again\.$/,
    );
    await eventually(() => sleepers(tag).length === 0);
  });

  test("the executor's shutdown (session close) kills every process the session started", async () => {
    const own = await workspace("host");
    const processes = new ProcessTable();
    const tool = processManagerTool({ processes, startWaitMs: 50 });
    const tags = [marker(), marker()];
    try {
      for (const tag of tags)
        await call(tool, { action: "start", command: `setsid sleep ${tag} & sleep ${tag}` }, execContext(own));
      await eventually(() => tags.every((tag) => sleepers(tag).length === 2));
      await own.executor.shutdown();
      await eventually(() => tags.every((tag) => sleepers(tag).length === 0));
      await eventually(() => processes.running().length === 0);
      expect((await call(tool, { action: "list" }, execContext(own))).output).toContain(
        "killed (the session ended or the sandbox stopped it)",
      );
    } finally {
      await own.dispose();
    }
  });
});

describe("process_manager permissions, as the engine decides them", () => {
  const root = "/work/project";
  const home = "/home/user";
  const tool = processManagerTool();
  const sandbox = {
    root,
    home,
    tmpDir: "/tmp/s",
    projectReadOnly: false,
    writePaths: [],
    protectedPaths: [],
    denyReadPaths: [],
    network: { mode: "none" as const },
  };
  const executor = {
    sandbox: { available: true as const, kind: "bwrap" as const },
    run: async () => {
      throw new Error("unused");
    },
    start: () => {
      throw new Error("unused");
    },
    shutdown: async () => {},
  };
  const engine = createPermissionEngine({ root, home, sandboxAvailable: true });
  const outcome = (input: ProcessManagerInput, mode: Mode) => {
    const plan = tool.plan(input, { root, home, sandbox, executor });
    return engine.check({ ...plan.permission, callId: "c", title: plan.info.title }, mode).outcome;
  };

  test("start is a command: allowed in the sandbox, asked outside it, denied outside it in plan mode", () => {
    expect(outcome({ action: "start", command: "npm run dev" }, "build")).toBe("allow");
    expect(outcome({ action: "start", command: "npm run dev" }, "plan")).toBe("allow");
    expect(outcome({ action: "start", command: "npm run dev", outside_sandbox: true }, "build")).toBe("ask");
    expect(outcome({ action: "start", command: "npm run dev", outside_sandbox: true }, "plan")).toBe("deny");
  });

  test("list, output and stop touch only this session's processes: never a question, in either mode", () => {
    for (const mode of ["build", "plan"] as const) {
      expect(outcome({ action: "list" }, mode)).toBe("allow");
      expect(outcome({ action: "output", id: "p1" }, mode)).toBe("allow");
      expect(outcome({ action: "stop", id: "p1" }, mode)).toBe("allow");
    }
    expect(tool.readOnly).toBe(false);
  });

  test("titles: `$ <command>` for start, kind execute", () => {
    const info = (input: ProcessManagerInput) => tool.plan(input, { root, home, sandbox, executor }).info;
    expect(info({ action: "start", command: `cd ${root} && npm run dev` })).toEqual({
      title: "$ npm run dev",
      kind: "execute",
      locations: [],
    });
    expect(info({ action: "list" }).kind).toBe("execute");
  });
});

describeSandbox("process_manager in the OS sandbox", () => {
  let ws: Workspace;
  beforeAll(async () => {
    ws = await workspace("sandbox");
  });
  afterAll(async () => {
    await ws.dispose();
  });

  test("a sandboxed start runs in the sandbox, says so, and stop ends it", async () => {
    const tool = processManagerTool({ startWaitMs: 500 });
    const tag = marker();
    const ctx = execContext(ws);
    const started = await call(tool, { action: "start", command: `echo watching > watch.log; sleep ${tag}` }, ctx);
    expect(started.output).toContain("in the sandbox): $ echo watching > watch.log;");
    expect(started.output).toContain("[Garuda: it runs in the OS sandbox, with its own network");
    await eventually(() => sleepers(tag).length === 1, 5_000);
    await call(tool, { action: "stop", id: "p1" }, ctx);
    await eventually(() => sleepers(tag).length === 0);
  });

  test(
    "plan mode stops the processes that can write the project (build mode's " +
      "sandbox, the host) and keeps plan mode's",
    async () => {
      const processes = new ProcessTable();
      const tool = processManagerTool({ processes, startWaitMs: 300 });
      const [build, host, plan] = [marker(), marker(), marker()];
      await call(tool, { action: "start", command: `sleep ${build}` }, execContext(ws));
      await call(
        tool,
        { action: "start", command: `sleep ${host}`, outside_sandbox: true },
        execContext(ws, { sandbox: null }),
      );
      await call(
        tool,
        { action: "start", command: `sleep ${plan}` },
        execContext(ws, { sandbox: ws.executor.spec({ projectReadOnly: true }) }),
      );
      await eventually(() => [build, host, plan].every((tag) => sleepers(tag).length === 1), 5_000);
      const ids = processes.list().map((entry) => entry.process.id);
      expect(await processes.stopWriters()).toEqual([
        { id: ids[0] as string, command: `sleep ${build}`, sandboxed: true },
        { id: ids[1] as string, command: `sleep ${host}`, sandboxed: false },
      ]);
      // Gone when stopWriters resolves, not some time later.
      expect([...sleepers(build), ...sleepers(host)]).toEqual([]);
      expect(sleepers(plan)).toHaveLength(1);
      const listed = (await call(tool, { action: "list" }, execContext(ws))).output.split("\n");
      expect(listed[0]).toEndWith("— stopped when plan mode began");
      expect(listed[2]).toContain("— running for");
      expect(await processes.stopWriters()).toEqual([]);
      await processes.stopAll();
    },
  );
});
