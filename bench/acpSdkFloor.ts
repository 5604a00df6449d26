// The SDK floor of bench/acp.ts: the least an ACP agent built on the ACP SDK can do. The SDK
// (its zod schemas built at import, every request checked) reads NDJSON from stdin as `garuda
// acp` does (Bun.stdin.stream()), answers initialize and session/new with answers of the same
// shape as Garuda's, and the process exits 0 when stdin closes. Nothing else loads. Built by the
// bench with buildBinary, so it has exactly the flags of the shipped binary; what Garuda's
// initialize costs above this is Garuda's, what this costs above bench/acpFloor.ts is the SDK's.
import * as acp from "@agentclientprotocol/sdk";
import { FLOOR_MODES } from "./acpFloorModes.ts";

const input = Bun.stdin.stream();
const output = new WritableStream<Uint8Array>({
  write: (chunk) =>
    new Promise<void>((resolve, reject) => process.stdout.write(chunk, (error) => (error ? reject(error) : resolve()))),
});

const connection = acp
  .agent({ name: "acp-sdk-floor" })
  .onRequest(acp.methods.agent.initialize, () => ({
    protocolVersion: acp.PROTOCOL_VERSION,
    agentInfo: { name: "acp-sdk-floor", title: "ACP SDK floor", version: "0.0.0" },
    agentCapabilities: { promptCapabilities: { embeddedContext: true, image: true }, mcpCapabilities: { http: true } },
    authMethods: [],
  }))
  .onRequest(acp.methods.agent.session.new, () => ({
    sessionId: crypto.randomUUID(),
    modes: FLOOR_MODES,
  }))
  .connect(acp.ndJsonStream(output, input));

void connection.closed.then(() => process.exit(0));
