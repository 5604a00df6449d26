// An ACP editor and Garuda's ACP server in one process: the SDK's client and serveAcp() joined
// by two TransformStreams (every message is really written and read as one NDJSON line), each
// session's Runtime from prepareRuntime with a FakeModelClient, in a temporary root and home.
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { type AcpServer, type AcpServerOptions, type PrepareRequest, serveAcp } from "../../src/acp/server.ts";
import { writeCredentials } from "../../src/config/credentials.ts";
import { garudaPaths } from "../../src/config/paths.ts";
import { ProviderKeys } from "../../src/config/providerKeys.ts";
import { FakeModelClient } from "../../src/model/fake.ts";
import type { ModelClient } from "../../src/model/types.ts";
import { prepareRuntime } from "../../src/compose/prepare.ts";
import type { Runtime } from "../../src/runtime/runtime.ts";
import { type SandboxProbe, probeSandbox } from "../../src/sandbox/probe.ts";
import { makeTempDir } from "./tempDir.ts";

export const BRIDGE = [process.execPath, join(import.meta.dir, "../../src/sandbox/bridgeMain.ts")];

let sharedProbe: Promise<SandboxProbe> | undefined;
/** One real sandbox probe per test file, as `garuda acp` makes one per process. */
export function testProbe(): Promise<SandboxProbe> {
  sharedProbe ??= probeSandbox({ env: process.env, tmpDir: tmpdir() });
  return sharedProbe;
}

export type PermissionAnswer = (
  params: acp.RequestPermissionRequest,
) => Promise<acp.RequestPermissionResponse> | acp.RequestPermissionResponse;

export const select = (optionId: string): acp.RequestPermissionResponse => ({
  outcome: { outcome: "selected", optionId },
});

export interface HarnessOptions {
  /** One model per session, in the order sessions are created; the last one is reused. */
  models?: FakeModelClient[];
  /** Every session on this client instead (the real Anthropic client on the mock server, say). */
  client?: ModelClient;
  /** Write ~/.garuda/models.json and credentials (default true). */
  setUp?: boolean;
  /** Build runtimes another way (tests of commands and of tools the core does not ship). */
  prepare?: (request: PrepareRequest, harness: Harness) => Promise<Runtime>;
  server?: Partial<Omit<AcpServerOptions, "prepare">>;
  files?: Record<string, string>;
  /** An existing home and root (an editor started again on the same machine): kept at close. */
  home?: string;
  root?: string;
  /** How the editor answers fs/read_text_file (its unsaved buffers); absent: the request fails. */
  readTextFile?: (params: acp.ReadTextFileRequest) => Promise<acp.ReadTextFileResponse> | acp.ReadTextFileResponse;
}

export interface Harness extends AsyncDisposable {
  readonly home: string;
  readonly root: string;
  readonly models: FakeModelClient[];
  readonly agent: acp.ClientContext;
  readonly server: AcpServer;
  /** Every session/update received, in order. */
  readonly updates: acp.SessionNotification[];
  /** Every permission request received, in order. */
  readonly permissions: acp.RequestPermissionRequest[];
  /** Every fs/read_text_file request received, in order. */
  readonly textFileReads: acp.ReadTextFileRequest[];
  /** Every line the server wrote. */
  readonly lines: string[];
  /** How the editor answers permission requests (default: allow once). */
  answer: PermissionAnswer;
  initialize(capabilities?: acp.ClientCapabilities): Promise<acp.InitializeResponse>;
  newSession(options?: {
    cwd?: string;
    mcpServers?: acp.McpServer[];
    additionalDirectories?: string[];
  }): Promise<acp.NewSessionResponse>;
  prompt(sessionId: string, prompt: string | acp.ContentBlock[]): Promise<acp.PromptResponse>;
  /** The updates of one session. */
  updatesOf(sessionId: string): acp.SessionUpdate[];
  /** Resolves once an update matching `test` has arrived. */
  waitFor(test: (update: acp.SessionUpdate) => boolean, timeoutMs?: number): Promise<acp.SessionUpdate>;
  close(): Promise<void>;
}

/** The code and message of a request that must fail (the test fails when it does not). */
export async function rejection(promise: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await promise;
  } catch (error) {
    const e = error as { code: number; message: string };
    return { code: e.code, message: e.message };
  }
  throw new Error("the request did not fail");
}

/** The model's text of a session's agent_message_chunks. */
export function messageText(updates: readonly acp.SessionUpdate[]): string {
  return updates
    .flatMap((u) => (u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" ? [u.content.text] : []))
    .join("");
}

export function ofKind<K extends acp.SessionUpdate["sessionUpdate"]>(
  updates: readonly acp.SessionUpdate[],
  kind: K,
): Extract<acp.SessionUpdate, { sessionUpdate: K }>[] {
  return updates.filter((u): u is Extract<acp.SessionUpdate, { sessionUpdate: K }> => u.sessionUpdate === kind);
}

/** The text parts of a tool call's content. */
export function contentText(content: readonly acp.ToolCallContent[] | null | undefined): string {
  return (content ?? [])
    .flatMap((c) => (c.type === "content" && c.content.type === "text" ? [c.content.text] : []))
    .join("\n");
}

/** A temporary home with a model and key set up, as after `garuda setup`. */
export function setUpHome(home: string): void {
  const paths = garudaPaths(home);
  mkdirSync(paths.dir, { recursive: true });
  writeFileSync(paths.models, JSON.stringify({ default: "claude-sonnet-5" }));
  writeCredentials(paths.credentials, { ANTHROPIC_API_KEY: "sk-ant-test-key-0000" });
}

/**
 * The production wiring of garuda acp, with the fake model (or another client, such as the real
 * one on a mock server) in place of the provider.
 */
export function realPrepare(home: string, nextModel: () => ModelClient) {
  return async ({
    cwd,
    additionalDirectories,
    mcpServers,
    approver,
    buffers,
    projectTrust,
    sessionId,
    resume,
    mode,
  }: PrepareRequest): Promise<Runtime> => {
    return prepareRuntime({
      root: cwd,
      extraRoots: additionalDirectories,
      editorMcpServers: mcpServers,
      ...(buffers && { buffers }),
      sessionId,
      ...(resume && { resume }),
      paths: garudaPaths(home),
      env: { PATH: process.env.PATH, HOME: home },
      keys: new ProviderKeys(),
      managedPolicy: join(home, "no-managed-policy.json"),
      approver,
      projectTrust,
      ...(mode && { mode }),
      selfCommand: BRIDGE,
      probe: await testProbe(),
      openModel: async () => nextModel(),
    });
  };
}

/** A byte pipe that also records each line that crosses it. */
function tap(lines: string[]): TransformStream<Uint8Array, Uint8Array> {
  const decoder = new TextDecoder();
  let buffer = "";
  return new TransformStream({
    transform(chunk, controller) {
      buffer += decoder.decode(chunk, { stream: true });
      let newline = buffer.indexOf("\n");
      while (newline !== -1) {
        lines.push(buffer.slice(0, newline));
        buffer = buffer.slice(newline + 1);
        newline = buffer.indexOf("\n");
      }
      controller.enqueue(chunk);
    },
  });
}

export function startHarness(options: HarnessOptions = {}): Harness {
  const home = options.home ?? makeTempDir("garuda-acp-home-");
  const root = options.root ?? makeTempDir("garuda-acp-root-");
  if (options.setUp !== false && !options.home) setUpHome(home);
  for (const [path, text] of Object.entries(options.files ?? {})) writeFileSync(join(root, path), text);
  const models = options.models ?? [new FakeModelClient()];
  let sessions = 0;
  const nextModel = (): ModelClient =>
    options.client ?? (models[Math.min(sessions++, models.length - 1)] as FakeModelClient);

  const updates: acp.SessionNotification[] = [];
  const permissions: acp.RequestPermissionRequest[] = [];
  const textFileReads: acp.ReadTextFileRequest[] = [];
  const lines: string[] = [];
  const waiters: Array<{ test: (u: acp.SessionUpdate) => boolean; resolve: (u: acp.SessionUpdate) => void }> = [];
  const toServer = new TransformStream<Uint8Array, Uint8Array>();
  const toClient = new TransformStream<Uint8Array, Uint8Array>();

  let harness: Harness;
  const defaultPrepare = realPrepare(home, nextModel);
  const server = serveAcp(
    { input: toServer.readable, output: toClient.writable },
    {
      prepare: (request) => (options.prepare ? options.prepare(request, harness) : defaultPrepare(request)),
      setup: { command: "/opt/garuda/garuda", args: ["acp", "setup"] },
      log: () => {},
      sessionsDir: garudaPaths(home).sessions,
      ...options.server,
    },
  );
  const client = acp
    .client({ name: "test-editor" })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      updates.push(params);
      for (const waiter of [...waiters]) {
        if (waiter.test(params.update)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(params.update);
        }
      }
    })
    .onRequest(acp.methods.client.session.requestPermission, async ({ params }) => {
      permissions.push(params);
      return harness.answer(params);
    })
    .onRequest(acp.methods.client.fs.readTextFile, async ({ params }) => {
      textFileReads.push(params);
      if (!options.readTextFile) throw new Error("this editor has no buffers");
      return options.readTextFile(params);
    })
    .connect(acp.ndJsonStream(toServer.writable, toClient.readable.pipeThrough(tap(lines))));

  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await server.shutdown();
    client.close();
    if (!options.home) rmSync(home, { recursive: true, force: true });
    if (!options.root) rmSync(root, { recursive: true, force: true });
  };

  harness = {
    home,
    root,
    models,
    agent: client.agent,
    server,
    updates,
    permissions,
    textFileReads,
    lines,
    answer: () => select("once"),
    initialize: (capabilities = {}) =>
      client.agent.request(acp.methods.agent.initialize, {
        protocolVersion: acp.PROTOCOL_VERSION,
        clientCapabilities: capabilities,
        clientInfo: { name: "test-editor", version: "1.0.0" },
      }),
    newSession: (session = {}) =>
      client.agent.request(acp.methods.agent.session.new, {
        cwd: session.cwd ?? root,
        mcpServers: session.mcpServers ?? [],
        ...(session.additionalDirectories && { additionalDirectories: session.additionalDirectories }),
      }),
    prompt: (sessionId, prompt) =>
      client.agent.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: typeof prompt === "string" ? [{ type: "text", text: prompt }] : prompt,
      }),
    updatesOf: (sessionId) => updates.filter((n) => n.sessionId === sessionId).map((n) => n.update),
    waitFor: (test, timeoutMs = 20_000) => {
      const seen = updates.find((n) => test(n.update));
      if (seen) return Promise.resolve(seen.update);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error("no such update arrived")), timeoutMs);
        waiters.push({
          test,
          resolve: (update) => {
            clearTimeout(timer);
            resolve(update);
          },
        });
      });
    },
    close,
    [Symbol.asyncDispose]: close,
  };
  return harness;
}
