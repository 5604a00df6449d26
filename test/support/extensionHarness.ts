// Sessions for the extension tests: a temporary home and project with real files, a session
// made by prepareRuntime (the real engine, executor, sandbox, trust store and extensions), a
// FakeModelClient, and an approver that answers from a script and records every question.
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { writeCredentials } from "../../src/config/credentials.ts";
import { type GarudaPaths, garudaPaths } from "../../src/config/paths.ts";
import { ProviderKeys } from "../../src/config/providerKeys.ts";
import { FakeModelClient, type FakeTurn } from "../../src/model/fake.ts";
import type { ApprovalRequest, Approver, Choice } from "../../src/permission/types.ts";
import type { AgentEvent, StopReason } from "../../src/core-types/events.ts";
import { type PrepareOptions, prepareRuntime } from "../../src/compose/prepare.ts";
import type { Runtime } from "../../src/runtime/runtime.ts";
import type { SandboxProbe } from "../../src/sandbox/probe.ts";
import { machineSandbox, SELF_COMMAND } from "./sandboxSupport.ts";
import { makeTempDir } from "./tempDir.ts";

/** A machine with no OS sandbox. */
export const NO_SANDBOX: SandboxProbe = {
  availability: { available: false, reason: "no sandbox in this test", fix: "none needed" },
};

/** The Bun running the tests, and the fixture MCP server's entry. */
export const BUN = process.execPath;
export { FIXTURE_SERVER } from "./mcpFixtures.ts";

export interface Place {
  home: string;
  root: string;
  paths: GarudaPaths;
  /** Writes a file under the project root (folders made). */
  project(path: string, text: string): string;
  /** Writes a file under the home folder (folders made). */
  user(path: string, text: string): string;
  [Symbol.dispose](): void;
}

/** A fresh home (with a model and key set up) and project, removed at the end of the `using` block. */
export function place(): Place {
  const base = makeTempDir("garuda-ext-", { real: true });
  const home = join(base, "home");
  const root = join(base, "project");
  mkdirSync(root, { recursive: true });
  const paths = garudaPaths(home);
  mkdirSync(paths.dir, { recursive: true, mode: 0o700 });
  writeFileSync(paths.models, JSON.stringify({ default: "claude-sonnet-5" }));
  writeCredentials(paths.credentials, { ANTHROPIC_API_KEY: "sk-ant-test-key-0000" });
  const write = (dir: string) => (path: string, text: string) => {
    const full = join(dir, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, text);
    return full;
  };
  return {
    home,
    root,
    paths,
    project: write(root),
    user: write(home),
    [Symbol.dispose]: () => rmSync(base, { recursive: true, force: true }),
  };
}

export interface Answering extends Approver {
  asked: ApprovalRequest[];
  /** Answers still to give. */
  answers: Choice[];
}

/** Answers from `answers` in order ("deny" when they run out) and records each question. */
export function answering(...answers: Choice[]): Answering {
  const approver: Answering = {
    asked: [],
    answers,
    ask: async (request) => {
      approver.asked.push(request);
      return approver.answers.shift() ?? "deny";
    },
  };
  return approver;
}

export interface Session {
  runtime: Runtime;
  model: FakeModelClient;
  /** The specs of the models opened, in order (the session's first; a custom agent's own model next). */
  opened: string[];
  /** Runs a prompt the way a front end does: resolveCommand first, then the turn. */
  prompt(
    text: string,
    signal?: AbortSignal,
  ): Promise<{ stop: StopReason | "unknown" | "builtin"; events: AgentEvent[] }>;
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * prepareRuntime for `where` as every test here needs it (temp home and project, no managed
 * policy but <home>/no-managed-policy.json, the source bridge, this machine's sandbox, `model`
 * for every model opened), with `extra` on top.
 */
export function prepareIn(where: Place, model: FakeModelClient, extra: Partial<PrepareOptions> = {}): Promise<Runtime> {
  return prepareRuntime({
    root: where.root,
    paths: where.paths,
    env: { PATH: process.env.PATH, HOME: where.home },
    keys: new ProviderKeys(),
    managedPolicy: join(where.home, "no-managed-policy.json"),
    selfCommand: SELF_COMMAND,
    probe: machineSandbox,
    openModel: async () => model,
    ...extra,
  });
}

export async function session(
  where: Place,
  turns: FakeTurn[],
  approver?: Approver,
  env: Record<string, string | undefined> = {},
  probe: SandboxProbe = machineSandbox,
): Promise<Session> {
  const model = new FakeModelClient(turns);
  const opened: string[] = [];
  const runtime = await prepareIn(where, model, {
    env: { PATH: process.env.PATH, HOME: where.home, ...env },
    probe,
    openModel: async (prepared) => {
      opened.push(prepared.model.spec);
      return model;
    },
    ...(approver && { approver }),
  });
  return {
    runtime,
    model,
    opened,
    async prompt(text, signal = new AbortController().signal) {
      const events: AgentEvent[] = [];
      const resolved = runtime.resolveCommand(text);
      if (resolved.kind !== "prompt") return { stop: resolved.kind, events };
      const stop = await runtime.runTurn(resolved.text, signal, (event) => events.push(event));
      return { stop, events };
    },
    [Symbol.asyncDispose]: () => runtime.close(),
  };
}

export const notices = (events: readonly AgentEvent[]) =>
  events.flatMap((event) => (event.type === "notice" ? [event.text] : []));
export const results = (events: readonly AgentEvent[]) =>
  events.filter((event): event is Extract<AgentEvent, { type: "tool_result" }> => event.type === "tool_result");
/** The text of the last prompt (a user message with text, not tool results) the model got in request `index`. */
export function userText(model: FakeModelClient, index = 0): string {
  const messages = model.requests[index]?.messages ?? [];
  const prompts = messages.filter(
    (message) => message.role === "user" && message.content.some((block) => block.type === "text"),
  );
  const last = prompts.at(-1);
  if (last?.role !== "user") return "";
  return last.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("\n");
}
