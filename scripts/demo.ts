// `bun run demo`: Garuda in an editor, without the editor, without an API key, without a network.
//
//   bun scripts/demo.ts [--rebuild]
//
// Builds dist/garuda when it is missing or older than src/, makes a small project in a temporary
// folder, starts the mock Anthropic server in this process with the scripted conversation of
// scripts/demo/conversation.json, starts `dist/garuda acp` with a temporary HOME, and drives it
// with the ACP SDK's client as an editor does: initialize, session/new, session/prompt. It prints
// what an editor shows (streamed text, tool calls with their kind and status, the approval
// question with its options and diff, the stop reason) and then checks that the session went as
// scripted. Exit 0 only if every check passes; test/scripts/demo.test.ts runs it as a smoke test.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, isAbsolute, join, relative } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { DIST, ROOT, binaryName, buildHost, hostOs, staleReason } from "./buildTargets.ts";
import { descendants, processTable } from "../src/sandbox/processTree.ts";
import { unifiedDiff } from "../src/tools/diff.ts";
import { type MockResponse, startMockAnthropic } from "../test/support/mockAnthropic.ts";

const CONVERSATION = join(import.meta.dir, "demo/conversation.json");
/** The key the demo's agent gets; the mock refuses any other, so the check proves the env reaches the provider. */
const DEMO_KEY = "sk-ant-demo-not-a-real-key";
const MODEL = "claude-sonnet-5";
/** The whole demo, start of the agent to its exit, must fit in this. */
const DEADLINE_MS = 90_000;
const EXIT_LIMIT_MS = 10_000;

interface Turn {
  prompt: string;
  responses: MockResponse[];
}

interface Conversation {
  files: Record<string, string>;
  expect: { file: string; after: string; commandOutput: string };
  turns: Turn[];
}

// ---------------------------------------------------------------------------------------------
// Terminal output

const color = process.stdout.isTTY === true && !process.env.NO_COLOR;
const paint = (code: string) => (text: string) => (color ? `\x1b[${code}m${text}\x1b[0m` : text);
const dim = paint("2");
const bold = paint("1");
const red = paint("31");
const green = paint("32");
const yellow = paint("33");
const cyan = paint("36");

/** Whether the cursor is in the middle of a line of streamed text. */
let midLine = false;
function out(text: string): void {
  process.stdout.write(text);
  if (text.length > 0) midLine = !text.endsWith("\n");
}
function line(text = ""): void {
  if (midLine) out("\n");
  out(`${text}\n`);
}
const indent = (text: string, by = "      ") =>
  text
    .replace(/\n$/, "")
    .split("\n")
    .map((l) => `${by}${l}`)
    .join("\n");

function statusMark(status: string | null | undefined): string {
  if (status === "completed") return green("✓");
  if (status === "failed") return red("✗");
  if (status === "in_progress") return yellow("…");
  return dim("○");
}

function textOf(content: readonly acp.ToolCallContent[] | null | undefined): string {
  return (content ?? [])
    .flatMap((c) => (c.type === "content" && c.content.type === "text" ? [c.content.text] : []))
    .join("\n");
}

function diffsOf(
  content: readonly acp.ToolCallContent[] | null | undefined,
): Extract<acp.ToolCallContent, { type: "diff" }>[] {
  return (content ?? []).filter((c): c is Extract<acp.ToolCallContent, { type: "diff" }> => c.type === "diff");
}

function showDiff(diff: Extract<acp.ToolCallContent, { type: "diff" }>, project: string): void {
  const path = isAbsolute(diff.path) ? relative(project, diff.path) : diff.path;
  const { text } = unifiedDiff(path, diff.oldText ?? null, diff.newText);
  for (const row of text.split("\n")) {
    const shown =
      row.startsWith("+") && !row.startsWith("+++")
        ? green(row)
        : row.startsWith("-") && !row.startsWith("---")
          ? red(row)
          : row.startsWith("@@")
            ? cyan(row)
            : dim(row);
    line(`      ${shown}`);
  }
}

/** The first lines of a tool's output, as an editor's collapsed card shows them. */
function preview(text: string, lines = 6): string {
  const rows = text.replace(/\n$/, "").split("\n");
  const head = rows.slice(0, lines).join("\n");
  return rows.length > lines ? `${head}\n… ${rows.length - lines} more lines` : head;
}

// ---------------------------------------------------------------------------------------------
// The binary

async function ensureBinary(rebuild: boolean): Promise<string> {
  const os = hostOs();
  if (!os) throw new Error(`Garuda has no build for ${process.platform}`);
  const binary = join(DIST, binaryName(os));
  const why = rebuild ? "--rebuild" : staleReason(binary);
  if (why) {
    line(dim(`building ${relative(ROOT, binary)} (${why}) …`));
    const built = await buildHost(binary);
    line(dim(`built ${relative(ROOT, binary)} ${built.version} in ${(built.ms / 1000).toFixed(1)} s`));
  }
  return binary;
}

// ---------------------------------------------------------------------------------------------
// Processes

/** Whether `pid` is a live process (not gone, not a zombie waiting to be reaped). */
function alive(pid: number): boolean {
  const entry = processTable().get(pid);
  return entry !== undefined && !entry.zombie;
}

function withDeadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

// ---------------------------------------------------------------------------------------------
// The editor

interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

interface CallState {
  id: string;
  title: string;
  kind: string;
  status: string;
  output: string;
  statuses: string[];
}

async function main(): Promise<number> {
  const rebuild = process.argv.includes("--rebuild");
  for (const arg of process.argv.slice(2))
    if (arg !== "--rebuild") throw new Error(`unknown argument ${arg}; usage: bun scripts/demo.ts [--rebuild]`);
  const conversation = JSON.parse(readFileSync(CONVERSATION, "utf8")) as Conversation;
  const binary = await ensureBinary(rebuild);

  const work = mkdtempSync(join(tmpdir(), "garuda-demo-"));
  const project = join(work, "project");
  const home = join(work, "home");
  mkdirSync(project);
  mkdirSync(home);
  for (const [path, text] of Object.entries(conversation.files)) {
    mkdirSync(dirname(join(project, path)), { recursive: true });
    writeFileSync(join(project, path), text);
  }

  const mock = startMockAnthropic({ apiKey: DEMO_KEY, script: conversation.turns.flatMap((turn) => turn.responses) });
  const expectedRequests = conversation.turns.reduce((n, turn) => n + turn.responses.length, 0);
  const checks: Check[] = [];
  const check = (name: string, ok: boolean, detail = "") => checks.push({ name, ok, detail });

  line(bold("Garuda demo") + dim(": dist/garuda acp, driven the way an editor drives it, against a scripted model"));
  line(dim(`  project  ${project}  (${Object.keys(conversation.files).join(", ")})`));
  line(dim(`  model    ${MODEL} from a mock Anthropic server at ${mock.url}: no API key, no network`));

  const proc = Bun.spawn([binary, "acp"], {
    cwd: project,
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: home,
      ANTHROPIC_BASE_URL: mock.url,
      ANTHROPIC_API_KEY: DEMO_KEY,
      GARUDA_MODEL: MODEL,
    },
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  line(dim(`  agent    ${relative(ROOT, binary)} acp (pid ${proc.pid})`));
  const stderr = new Response(proc.stderr).text();

  // Every line the agent writes, to check that stdout carries only protocol messages.
  const stdoutLines: string[] = [];
  const decoder = new TextDecoder();
  let partial = "";
  const fromAgent = proc.stdout.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        partial += decoder.decode(chunk, { stream: true });
        const parts = partial.split("\n");
        partial = parts.pop() ?? "";
        stdoutLines.push(...parts);
        controller.enqueue(chunk);
      },
    }),
  );
  const toAgent = new WritableStream<Uint8Array>({
    async write(chunk) {
      proc.stdin.write(chunk);
      await proc.stdin.flush();
    },
  });

  const calls = new Map<string, CallState>();
  const questions: acp.RequestPermissionRequest[] = [];
  const seenChildren = new Set<number>();
  const sampleChildren = () => {
    for (const pid of descendants(proc.pid)) seenChildren.add(pid);
  };
  let turnText = "";
  let turnChunks = 0;

  const onUpdate = (update: acp.SessionUpdate) => {
    sampleChildren();
    switch (update.sessionUpdate) {
      case "agent_message_chunk":
        if (update.content.type === "text") {
          if (!midLine) out(`${cyan("garuda›")} `);
          out(update.content.text);
          turnText += update.content.text;
          turnChunks++;
        }
        break;
      case "agent_thought_chunk":
        if (update.content.type === "text") line(dim(`  (thinking) ${update.content.text}`));
        break;
      case "tool_call": {
        const call: CallState = {
          id: update.toolCallId,
          title: update.title,
          kind: update.kind ?? "other",
          status: update.status ?? "pending",
          output: textOf(update.content),
          statuses: [update.status ?? "pending"],
        };
        calls.set(call.id, call);
        const where = (update.locations ?? [])
          .map((l) => relative(project, l.path) + (l.line ? `:${l.line}` : ""))
          .join(", ");
        line(
          `  ${statusMark(call.status)} ${bold(call.title)}  ` +
            `${dim(`[${call.kind}] ${call.status}${where ? ` · ${where}` : ""}`)}`,
        );
        break;
      }
      case "tool_call_update": {
        const call = calls.get(update.toolCallId);
        if (!call) {
          line(red(`  ! an update for a tool call the editor was never shown: ${update.toolCallId}`));
          break;
        }
        if (update.title) call.title = update.title;
        const text = textOf(update.content);
        if (text) call.output = text;
        if (update.status && update.status !== call.status) {
          call.status = update.status;
          call.statuses.push(update.status);
          line(`  ${statusMark(call.status)} ${bold(call.title)}  ${dim(`[${call.kind}] ${call.status}`)}`);
          if (text && (call.status === "completed" || call.status === "failed")) line(dim(indent(preview(text))));
        } else if (text) {
          line(dim(indent(preview(text, 2))));
        }
        break;
      }
      case "available_commands_update": {
        const menu =
          update.availableCommands.length === 0
            ? "no custom commands or skills in this project"
            : update.availableCommands.map((c) => `/${c.name}`).join(" ");
        line(dim(`  (the / menu: ${menu})`));
        break;
      }
      case "current_mode_update":
        line(dim(`  (mode: ${update.currentModeId})`));
        break;
      case "plan":
        line(
          dim(
            `  plan: ${update.entries.map((e) => `${e.status === "completed" ? "☑" : "☐"} ${e.content}`).join("  ")}`,
          ),
        );
        break;
      default:
        line(dim(`  (${update.sessionUpdate})`));
    }
  };

  const onPermission = (params: acp.RequestPermissionRequest): acp.RequestPermissionResponse => {
    sampleChildren();
    questions.push(params);
    const title = params.toolCall.title ?? calls.get(params.toolCall.toolCallId)?.title ?? params.toolCall.toolCallId;
    line(`  ${yellow("?")} ${bold(`Garuda asks: ${title}`)}`);
    const diffs = diffsOf(params.toolCall.content);
    for (const diff of diffs) showDiff(diff, project);
    const text = textOf(params.toolCall.content);
    if (text && diffs.length === 0) line(indent(text));
    params.options.forEach((option, i) =>
      line(`      ${i + 1}) ${option.name}  ${dim(`${option.optionId} · ${option.kind}`)}`),
    );
    const allow =
      params.options.find((o) => o.kind === "allow_once") ?? params.options.find((o) => o.kind === "allow_always");
    if (!allow) {
      line(red("      → no option allows it; the demo cancels the question"));
      return { outcome: { outcome: "cancelled" } };
    }
    line(`      ${green("→")} the demo answers ${bold(allow.name)}`);
    return { outcome: { outcome: "selected", optionId: allow.optionId } };
  };

  const connection = acp
    .client({ name: "garuda-demo" })
    .onNotification(acp.methods.client.session.update, ({ params }) => onUpdate(params.update))
    .onRequest(acp.methods.client.session.requestPermission, ({ params }) => onPermission(params))
    .connect(acp.ndJsonStream(toAgent, fromAgent));
  const agent = connection.agent;

  let exitCode: number | null = null;
  let exitMs = Number.NaN;
  try {
    const run = async () => {
      line();
      let started = performance.now();
      const init = await agent.request(acp.methods.agent.initialize, {
        protocolVersion: acp.PROTOCOL_VERSION,
        clientCapabilities: {
          fs: { readTextFile: true, writeTextFile: true },
          terminal: true,
          auth: { terminal: true },
        },
        clientInfo: { name: "garuda-demo", title: "Garuda demo editor", version: "1.0.0" },
      });
      const initMs = performance.now() - started;
      const auth =
        init.authMethods?.map((m) => `${m.id}${"type" in m && m.type ? ` (${m.type})` : ""}`).join(", ") || "none";
      line(
        `${dim("→ initialize")}   ${init.agentInfo?.title ?? init.agentInfo?.name} ` +
          `${init.agentInfo?.version}, ACP protocol ${init.protocolVersion}; sign-in ` +
          `methods: ${auth}  ${dim(`${initMs.toFixed(0)} ms`)}`,
      );
      check(
        "initialize answered with ACP protocol 1",
        init.protocolVersion === 1,
        `protocolVersion ${init.protocolVersion}`,
      );

      started = performance.now();
      const session = await agent.request(acp.methods.agent.session.new, { cwd: project, mcpServers: [] });
      const newMs = performance.now() - started;
      const modes = session.modes?.availableModes.map((m) => m.id).join(", ") ?? "none";
      line(
        `${dim("→ session/new")}  session ${session.sessionId.slice(0, 8)}…, mode ` +
          `${session.modes?.currentModeId ?? "?"} (modes: ${modes})  ` +
          `${dim(`${newMs.toFixed(0)} ms`)}`,
      );

      for (const [i, turn] of conversation.turns.entries()) {
        line();
        line(`${bold("you›")} ${turn.prompt}`);
        turnText = "";
        turnChunks = 0;
        const response = await agent.request(acp.methods.agent.session.prompt, {
          sessionId: session.sessionId,
          prompt: [{ type: "text", text: turn.prompt }],
        });
        line(dim(`  ⏹ stop reason: ${response.stopReason}`));
        check(
          `turn ${i + 1} ended with stopReason end_turn`,
          response.stopReason === "end_turn",
          `stopReason ${response.stopReason}`,
        );
        const scripted = turn.responses
          .flatMap((r) => ("steps" in r ? r.steps : []))
          .flatMap((s) => (s.type === "text" ? [s.text] : []))
          .join("");
        check(
          `turn ${i + 1}: the model's text arrived, streamed`,
          scripted.length > 0 &&
            turnChunks > 1 &&
            turnText.replace(/\s+/g, " ").includes(scripted.replace(/\s+/g, " ")),
          `${turnChunks} chunks: ${JSON.stringify(turnText.slice(0, 80))}`,
        );
      }
    };
    await withDeadline(run(), DEADLINE_MS, "the scripted session");

    // The editor closes: stdin ends, and the agent must exit on its own, leaving nothing behind.
    sampleChildren();
    line();
    const closing = performance.now();
    await proc.stdin.end();
    exitCode = await withDeadline(proc.exited, EXIT_LIMIT_MS, "the agent to exit after stdin closed").catch(() => null);
    exitMs = performance.now() - closing;
    line(
      dim(
        `stdin closed → the agent exited with ${exitCode ?? "nothing (still running)"} after ${exitMs.toFixed(0)} ms`,
      ),
    );
  } catch (error) {
    line(red(`the demo stopped: ${error instanceof Error ? error.message : String(error)}`));
    check("the scripted session ran to its end", false, error instanceof Error ? error.message : String(error));
  } finally {
    connection.close();
    if (proc.exitCode === null && proc.signalCode === null) {
      proc.kill("SIGKILL");
      await proc.exited;
    }
    await mock.close();
  }

  // ------------------------------------------------------------------------------------------
  // Checks

  const all = [...calls.values()];
  const onDisk = existsSync(join(project, conversation.expect.file))
    ? readFileSync(join(project, conversation.expect.file), "utf8")
    : undefined;
  const edit = all.find((c) => c.kind === "edit");
  const command = all.find((c) => c.kind === "execute");
  const read = all.find((c) => c.kind === "read");
  const editQuestion = questions.find((q) => q.toolCall.toolCallId === edit?.id);
  const lastRequest = JSON.stringify(mock.requests.at(-1)?.body ?? null);

  check(
    "a read, an edit and a command were shown as tool calls",
    read !== undefined && edit !== undefined && command !== undefined,
    all.map((c) => `${c.kind}: ${c.title}`).join("; "),
  );
  check(
    "every tool call completed",
    all.length > 0 && all.every((c) => c.status === "completed"),
    all.map((c) => `${c.title}: ${c.statuses.join(" → ")}`).join("; "),
  );
  check(
    "the edit asked first, with a diff and an allow and a deny option",
    editQuestion !== undefined &&
      diffsOf(editQuestion.toolCall.content).length > 0 &&
      editQuestion.options.some((o) => o.kind === "allow_once") &&
      editQuestion.options.some((o) => o.kind === "reject_once"),
    `${questions.length} question(s): ${questions.map((q) => q.toolCall.title).join("; ")}`,
  );
  check("the approved edit is on disk", onDisk === conversation.expect.after, JSON.stringify(onDisk));
  check(
    "the command ran and the model got its output",
    command !== undefined &&
      command.output.includes(conversation.expect.commandOutput) &&
      lastRequest.includes(conversation.expect.commandOutput),
    JSON.stringify(command?.output.slice(0, 120)),
  );
  check(
    "the mock model served the whole script, with the editor's key",
    mock.requests.length === expectedRequests &&
      mock.requests.every(
        (r) => r.headers["x-api-key"] === DEMO_KEY || r.headers.authorization === `Bearer ${DEMO_KEY}`,
      ),
    `${mock.requests.length} of ${expectedRequests} requests`,
  );
  check("the agent exited 0 after stdin closed", exitCode === 0, `exit ${exitCode} after ${exitMs.toFixed(0)} ms`);
  const left = [...seenChildren, ...descendants(process.pid)].filter(alive);
  check(
    "no process left behind",
    left.length === 0,
    `${seenChildren.size} child process(es) seen during the session; alive now: ${left.join(", ") || "none"}`,
  );
  const badLines = stdoutLines.filter((l) => {
    try {
      return (JSON.parse(l) as { jsonrpc?: unknown }).jsonrpc !== "2.0";
    } catch {
      return true;
    }
  });
  check(
    "the agent's stdout carried only JSON-RPC lines",
    badLines.length === 0 && partial === "" && stdoutLines.length > 0,
    `${stdoutLines.length} ` +
      `lines${badLines.length > 0 ? `; not JSON-RPC: ${JSON.stringify(badLines[0]).slice(0, 120)}` : ""}`,
  );

  line(bold("checks"));
  for (const c of checks) line(`  ${c.ok ? green("✓") : red("✗")} ${c.name}${c.ok ? "" : dim(`  (${c.detail})`)}`);
  const failed = checks.filter((c) => !c.ok);
  if (failed.length > 0) {
    const err = (await stderr).trim();
    if (err) {
      line(dim("the agent's stderr (its log):"));
      line(dim(indent(err.split("\n").slice(-30).join("\n"), "  ")));
    }
  }
  rmSync(work, { recursive: true, force: true });
  line(failed.length === 0 ? green(bold("the demo went as scripted")) : red(bold(`${failed.length} check(s) failed`)));
  return failed.length === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    line(red(`demo failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`));
    process.exit(1);
  },
);
