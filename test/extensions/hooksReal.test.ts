// Hooks through the real Executor (src/sandbox/executor.ts): in the OS sandbox, and on the host.
import { afterAll, expect, test } from "bun:test";
import { existsSync, realpathSync } from "node:fs";
import { type HookServices, runPostToolUse, runPreToolUse } from "../../src/extensions/hooks.ts";
import type { HookDefinition } from "../../src/extensions/hooksConfig.ts";
import { emptyTeamPolicy } from "../../src/permission/teamPolicy.ts";
import type { PermissionRequest } from "../../src/permission/types.ts";
import { createExecutor } from "../../src/sandbox/executor.ts";
import type { ProcessExecutor } from "../../src/sandbox/types.ts";
import type { AuditEvent } from "../../src/store/audit.ts";
import { SELF_COMMAND, describeSandbox, machineSandbox } from "../support/sandboxSupport.ts";
import { tempDir } from "../support/tempDir.ts";

const root = tempDir("garuda-hook-root-");
const home = tempDir("garuda-hook-home-");
const executors: ProcessExecutor[] = [];
afterAll(async () => {
  for (const executor of executors) await executor.shutdown();
  root[Symbol.dispose]();
  home[Symbol.dispose]();
});

const REQUEST: PermissionRequest = {
  tool: "bash",
  callId: "call-1",
  readOnly: false,
  target: { kind: "command", command: "git push origin main", sandboxed: true },
  title: "$ git push origin main",
  preview: "git push origin main",
};

/** Prints what it was given to stderr (stdout is dropped) and blocks. */
const REPORTER = [
  'input=$(cat); echo "this line goes to stdout"',
  'echo "stdin=$input" >&2',
  'echo "file=$(cat "$GARUDA_HOOK_INPUT") mode=$(stat -c %a "$GARUDA_HOOK_INPUT" ' +
    '2>/dev/null || stat -f %Lp "$GARUDA_HOOK_INPUT")" >&2',
  'echo "event=$GARUDA_HOOK_EVENT tool=$GARUDA_TOOL command=$GARUDA_COMMAND file=[$GARUDA_FILE] url=[$GARUDA_URL]" >&2',
  "exit 2",
].join("\n");

const hook = (partial: Partial<HookDefinition>): HookDefinition => ({
  event: "preToolUse",
  tools: ["bash(git push*)"],
  command: REPORTER,
  timeoutMs: 10_000,
  source: "user",
  file: "hooks.json",
  ...partial,
});

async function services(sandboxed: boolean, events: AuditEvent[]): Promise<HookServices> {
  const realRoot = realpathSync(root.path);
  const executor = await createExecutor({
    root: realRoot,
    home: home.path,
    selfCommand: SELF_COMMAND,
    probe: sandboxed ? machineSandbox : { availability: { available: false, reason: "host test", fix: "none" } },
  });
  executors.push(executor);
  return {
    executor,
    sandbox: sandboxed ? executor.spec() : null,
    root: realRoot,
    home: home.path,
    policy: emptyTeamPolicy(),
    mode: "build",
    audit: { record: (event) => events.push(event) },
  };
}

async function protocol(sandboxed: boolean): Promise<void> {
  const events: AuditEvent[] = [];
  const ctx = await services(sandboxed, events);
  const outcome = await runPreToolUse(
    [hook({})],
    { request: REQUEST, input: { command: "git push origin main" } },
    ctx,
  );
  expect(outcome.blocked).toBe(true);
  const reason = outcome.blocked ? outcome.reason : "";
  const json = JSON.stringify({
    event: "preToolUse",
    tool: "bash",
    callId: "call-1",
    input: { command: "git push origin main" },
    target: REQUEST.target,
    root: ctx.root,
  });
  expect(reason).toBe(
    [
      `A hook blocked this call: stdin=${json}`,
      `file=${json} mode=600`,
      `event=preToolUse tool=bash command=git push origin main file=[] url=[]`,
    ].join("\n"),
  );
  expect(reason).not.toContain("this line goes to stdout");
  expect(events).toEqual([expect.objectContaining({ type: "hook", outcome: "blocked", exitCode: 2 })]);

  // exit 0 continues; a timeout blocks (fail closed) and warns.
  expect(await runPreToolUse([hook({ command: "exit 0" })], { request: REQUEST, input: {} }, ctx)).toEqual({
    blocked: false,
    warnings: [],
  });
  const slow = await runPreToolUse(
    [hook({ command: "sleep 5", timeoutMs: 300 })],
    { request: REQUEST, input: {} },
    ctx,
  );
  expect(slow.blocked).toBe(true);
  expect(slow.warnings[0]).toContain("failed: it timed out after 0.3s");

  // postToolUse: exit 2 is feedback.
  const post = await runPostToolUse(
    [hook({ event: "postToolUse", command: "echo 'please run the tests' >&2; exit 2" })],
    { request: REQUEST, input: {} },
    "pushed",
    ctx,
  );
  expect(post).toEqual({ feedback: ["please run the tests"], warnings: [] });
}

describeSandbox("hooks in the OS sandbox (real executor)", () => {
  test("stdin, input file, variables, exit codes and timeout", async () => {
    await protocol(true);
  });

  test("a hook cannot write outside the project from the sandbox", async () => {
    const events: AuditEvent[] = [];
    const ctx = await services(true, events);
    const outside = `${home.path}/written-by-hook`;
    const outcome = await runPreToolUse(
      [hook({ command: `echo x > '${outside}'` })],
      { request: REQUEST, input: {} },
      ctx,
    );
    expect(outcome.blocked).toBe(true);
    expect(existsSync(outside)).toBe(false);
  });
});

test("hooks on the host (real executor, sandbox: null): the same protocol", async () => {
  await protocol(false);
});

test(
  "a hook stopped because the user stopped the turn blocks the call without a " +
    "failure warning (a timeout still warns)",
  async () => {
    const ctx = await services(false, []);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 150);
    const started = performance.now();
    const stopped = await runPreToolUse(
      [hook({ command: "sleep 30" })],
      { request: REQUEST, input: {} },
      { ...ctx, signal: controller.signal },
    );
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(stopped.blocked).toBe(true);
    expect(stopped.warnings).toEqual([]);
    const post = await runPostToolUse(
      [hook({ event: "postToolUse", command: "sleep 30" })],
      { request: REQUEST, input: {} },
      "done",
      { ...ctx, signal: controller.signal },
    );
    expect(post.warnings).toEqual([]);
  },
);
