// The editor controls' part of bench/acp.ts: what the terminal output extension and the usage
// meter cost.
//
//   terminal 10 MB   dist/garuda acp with `_meta.terminal_output`: a warm-up turn (`true`), then a
//                    turn whose model runs a sandboxed command printing 10,000,000 bytes. Measured
//                    at the client, every byte counted (nothing may be lost): from the call's
//                    tool_call line to its terminal_exit line (the sandbox's start included), and
//                    from the first terminal_output line to terminal_exit (the streaming alone);
//                    the agent's VmRSS sampled every 5 ms, its growth taken against its VmRSS just
//                    before the turn. "same command, no extension" runs it for a client without
//                    the extension: the RSS Bun's own reading of 10 MB costs, whoever shows it.
//   usage on / off   in one process (test/support/acpHarness.ts: the SDK's client and Garuda's
//                    server over NDJSON streams, the real prepareRuntime, a FakeModelClient): a
//                    turn of 40 model responses (under the 50-step limit) of 250 text chunks each, so 40 usage_updates;
//                    "off" is the same turn with the runtime's usage events dropped before the
//                    mapper. chunks/s = 10,000 / the prompt's time.
//
// Targets: ≥ 50 MB/s through to the client and ≤ 10 MiB of RSS growth; usage_update per step:
// no measurable change in chunks/s.
import { writeFileSync } from "node:fs";
import { fake, FakeModelClient } from "../src/model/fake.ts";
import { realPrepare, startHarness } from "../test/support/acpHarness.ts";
import { HAS_PROC, INITIALIZE, MiB, Peer, prompt, start, statusBytes } from "./acpPeer.ts";
import type { Task } from "./interleave.ts";

export const TERMINAL_BYTES = 10_000_000;
const TERMINAL_CALL = "toolu_bench_10mb";
const LINE = "garuda terminal output bench 0123456789 abcdefghijklmnopqrstuvwxyz";
export const USAGE_STEPS = 40;
export const USAGE_CHUNKS_PER_STEP = 250;

export const CONTROL_TARGETS = { terminalMBps: 50, terminalRssGrowthMiB: 10 };

/** The mock script of the terminal task: a warm-up command and answer, then the 10 MB command and answer. */
export function writeTerminalScript(file: string): void {
  const command = `yes '${LINE}' | head -c ${TERMINAL_BYTES}`;
  writeFileSync(
    file,
    JSON.stringify({
      responses: [
        { steps: [{ type: "tool_use", name: "bash", id: "toolu_bench_warm", input: { command: "true" } }] },
        { steps: [{ type: "text", text: "Warm." }] },
        { steps: [{ type: "tool_use", name: "bash", id: TERMINAL_CALL, input: { command } }] },
        { steps: [{ type: "text", text: "Printed." }] },
      ],
    }),
  );
}

/**
 * The 10 MB turn; with `terminal: false` the same command without the extension (the output then
 * reaches the client only as the result's head and tail), for what the extension adds.
 */
export function terminalTask(
  garuda: string,
  project: string,
  env: () => { home: string; env: Record<string, string | undefined>; cleanup: () => void },
  terminal = true,
): Task {
  const name = terminal ? "garuda terminal 10 MB" : "same command, no extension";
  return {
    name,
    run: async () => {
      const { env: agentEnv, cleanup } = env();
      const peer = new Peer([garuda, "acp"], project, agentEnv);
      try {
        const capabilities = terminal
          ? { ...INITIALIZE.clientCapabilities, _meta: { terminal_output: true } }
          : INITIALIZE.clientCapabilities;
        const { sessionId } = await start(peer, project, { ...INITIALIZE, clientCapabilities: capabilities });
        await prompt(peer, sessionId, "Warm up.");
        let calledAt = Number.NaN;
        let exitAt = Number.NaN;
        let firstAt = Number.NaN;
        let bytes = 0;
        let updates = 0;
        peer.onUpdate = (update, at) => {
          if (update.toolCallId !== TERMINAL_CALL) return;
          if (update.sessionUpdate === "tool_call") calledAt = at;
          const output = update._meta?.terminal_output as { data?: string } | undefined;
          if (output?.data !== undefined) {
            if (Number.isNaN(firstAt)) firstAt = at;
            bytes += output.data.length;
            updates++;
          }
          if (
            update._meta?.terminal_exit ||
            (!terminal &&
              update.sessionUpdate === "tool_call_update" &&
              (update as { status?: string }).status === "completed")
          )
            exitAt = at;
        };
        const before = HAS_PROC ? statusBytes(peer.proc.pid, "VmRSS") : Number.NaN;
        let peak = before;
        const sampler = HAS_PROC
          ? setInterval(() => (peak = Math.max(peak, statusBytes(peer.proc.pid, "VmRSS"))), 5)
          : undefined;
        try {
          await prompt(peer, sessionId, "Print 10 MB.");
        } finally {
          if (sampler) clearInterval(sampler);
        }
        peak = Math.max(peak, HAS_PROC ? statusBytes(peer.proc.pid, "VmRSS") : Number.NaN);
        if (terminal && bytes !== TERMINAL_BYTES)
          throw new Error(`the client got ${bytes} bytes of terminal output, expected ${TERMINAL_BYTES}`);
        const { code } = await peer.close();
        if (code !== 0) throw new Error(`exit ${code}`);
        const ms = exitAt - calledAt;
        const streaming = exitAt - firstAt;
        return {
          terminalMs: ms,
          mbPerS: TERMINAL_BYTES / 1e6 / (ms / 1000),
          ...(terminal && {
            streamMs: streaming,
            streamMbPerS: TERMINAL_BYTES / 1e6 / (streaming / 1000),
            firstMs: firstAt - calledAt,
            updates,
          }),
          rssGrowthMiB: MiB(peak - before),
          rssBeforeMiB: MiB(before),
        };
      } catch (error) {
        throw await peer.failure(name, error);
      } finally {
        cleanup();
      }
    },
  };
}

/** One turn of USAGE_STEPS responses; with `usage: false` the runtime's usage events never reach the mapper. */
export function usageTask(usage: boolean): Task {
  return {
    name: usage ? "usage_update on" : "usage_update off",
    run: async () => {
      const text = "word ".repeat(USAGE_CHUNKS_PER_STEP);
      const turns = Array.from({ length: USAGE_STEPS }, (_, i) =>
        fake.reply([{ type: "text", text }], {
          chunks: USAGE_CHUNKS_PER_STEP,
          stopReason: i === USAGE_STEPS - 1 ? "end_turn" : "pause_turn",
          usage: { inputTokens: 20_000 + i * 100, outputTokens: 100 },
        }),
      );
      const model = new FakeModelClient(turns);
      await using h = startHarness({
        models: [model],
        prepare: async (request, harness) => {
          const runtime = await realPrepare(harness.home, () => model)(request);
          if (!usage) {
            const runTurn = runtime.runTurn.bind(runtime);
            runtime.runTurn = (text, signal, onEvent) =>
              runTurn(text, signal, (event) => (event.type === "usage" ? undefined : onEvent(event)));
          }
          return runtime;
        },
      });
      await h.initialize();
      const { sessionId } = await h.newSession();
      const started = performance.now();
      const answer = await h.prompt(sessionId, "Stream.");
      const ms = performance.now() - started;
      if (answer.stopReason !== "end_turn") throw new Error(`the turn ended ${answer.stopReason}`);
      const updates = h.updatesOf(sessionId);
      const chunks = updates.filter((u) => u.sessionUpdate === "agent_message_chunk").length;
      const meters = updates.filter((u) => u.sessionUpdate === "usage_update").length;
      if (chunks !== USAGE_STEPS * USAGE_CHUNKS_PER_STEP)
        throw new Error(`the client got ${chunks} chunks, expected ${USAGE_STEPS * USAGE_CHUNKS_PER_STEP}`);
      return { turnMs: ms, chunksPerS: chunks / (ms / 1000), usageUpdates: meters };
    },
  };
}
