// The library floor of bench/acpMemory.ts's `ls` turn: the least an ACP agent built on Garuda's
// libraries and sandbox can do for that turn. The ACP SDK (its zod checks included) answers the
// editor; the Anthropic SDK streams the model's answer; a `bash` tool call runs in bubblewrap with
// new namespaces (no Garuda mounts, policy, proxy, git snapshot or audit log), and its output goes
// back to the model; the text is streamed to the editor. No permission, no store, no config. Built
// by the bench with buildBinary, so it has exactly the shipped binary's flags; what Garuda's own
// turn costs above this is what Garuda adds, and what this costs is what the libraries and the
// runtime cost before any of Garuda's code runs.
import * as acp from "@agentclientprotocol/sdk";
import Anthropic from "@anthropic-ai/sdk";

const BWRAP = [
  "/usr/bin/bwrap",
  "--ro-bind",
  "/",
  "/",
  "--dev",
  "/dev",
  "--proc",
  "/proc",
  "--tmpfs",
  "/tmp",
  "--unshare-all",
  "--die-with-parent",
  "--new-session",
];

type Block = { type: "text"; text: string } | { type: "tool_use"; id: string; name: string; input: unknown };

async function runSandboxed(command: string, cwd: string): Promise<string> {
  const proc = Bun.spawn([...BWRAP, "--chdir", cwd, "--", "/bin/bash", "-c", command], {
    stdout: "pipe",
    stderr: "pipe",
    stdin: "ignore",
  });
  const [out, err] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return out + err;
}

function main(): void {
  const model = new Anthropic({
    apiKey: process.env.ANTHROPIC_API_KEY ?? "",
    baseURL: process.env.ANTHROPIC_BASE_URL ?? null,
    maxRetries: 0,
    logLevel: "off",
    openTelemetry: false,
  });
  const cwds = new Map<string, string>();
  const writer = Bun.stdout.writer();
  const output = new WritableStream<Uint8Array>({
    write: async (chunk) => {
      writer.write(chunk);
      await writer.flush();
    },
  });
  const connection = acp
    .agent({ name: "acp-library-floor" })
    .onRequest(acp.methods.agent.initialize, () => ({
      protocolVersion: acp.PROTOCOL_VERSION,
      agentCapabilities: { loadSession: false },
      authMethods: [],
    }))
    .onRequest(acp.methods.agent.session.new, ({ params }) => {
      const sessionId = crypto.randomUUID();
      cwds.set(sessionId, params.cwd);
      return { sessionId };
    })
    .onRequest(acp.methods.agent.session.prompt, async ({ params }) => {
      const cwd = cwds.get(params.sessionId) ?? "/";
      const update = (update: acp.SessionUpdate) =>
        connection.client.notify(acp.methods.client.session.update, { sessionId: params.sessionId, update });
      const messages: { role: "user" | "assistant"; content: unknown }[] = [
        {
          role: "user",
          content: params.prompt
            .filter((block) => block.type === "text")
            .map((block) => ({ type: "text", text: block.text })),
        },
      ];
      for (;;) {
        const stream = await model.messages.create({
          model: process.env.GARUDA_MODEL ?? "claude-sonnet-5",
          max_tokens: 1024,
          messages: messages as never,
          tools: [
            {
              name: "bash",
              description: "Runs a command",
              input_schema: { type: "object", properties: { command: { type: "string" } } },
            },
          ],
          stream: true,
        });
        const blocks: Block[] = [];
        const json: string[] = [];
        for await (const event of stream) {
          if (event.type === "content_block_start") {
            const block = event.content_block;
            blocks[event.index] =
              block.type === "tool_use"
                ? { type: "tool_use", id: block.id, name: block.name, input: {} }
                : { type: "text", text: "" };
            json[event.index] = "";
          } else if (event.type === "content_block_delta") {
            const block = blocks[event.index];
            if (event.delta.type === "text_delta" && block?.type === "text") {
              block.text += event.delta.text;
              await update({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: event.delta.text } });
            } else if (event.delta.type === "input_json_delta") json[event.index] += event.delta.partial_json;
          } else if (event.type === "content_block_stop") {
            const block = blocks[event.index];
            if (block?.type === "tool_use") block.input = JSON.parse(json[event.index] || "{}");
          }
        }
        messages.push({ role: "assistant", content: blocks });
        const calls = blocks.filter(
          (block): block is Extract<Block, { type: "tool_use" }> => block?.type === "tool_use",
        );
        if (calls.length === 0) return { stopReason: "end_turn" as const };
        const results = [];
        for (const call of calls) {
          const command = String((call.input as { command?: unknown }).command ?? "");
          await update({
            sessionUpdate: "tool_call",
            toolCallId: call.id,
            title: command,
            kind: "execute",
            status: "in_progress",
          });
          const text = await runSandboxed(command, cwd);
          await update({
            sessionUpdate: "tool_call_update",
            toolCallId: call.id,
            status: "completed",
            content: [{ type: "content", content: { type: "text", text } }],
          });
          results.push({ type: "tool_result", tool_use_id: call.id, content: text });
        }
        messages.push({ role: "user", content: results });
      }
    })
    .connect(acp.ndJsonStream(output, Bun.stdin.stream()));
  void connection.closed.then(() => process.exit(0));
}

main();
