// The background warm-up after initialize (server.ts options.warm): once, only after the first
// initialize has been answered, never on a platform where every session/new is refused.
import { describe, expect, test } from "bun:test";
import * as acp from "@agentclientprotocol/sdk";
import { startHarness } from "../support/acpHarness.ts";

/** A warm() that counts its calls. */
function counter() {
  const seen = { calls: 0 };
  return {
    seen,
    warm: async () => {
      seen.calls++;
    },
  };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

describe("warm-up after initialize", () => {
  test("runs once, after the first initialize is answered, and a second initialize does not run it again", async () => {
    const { seen, warm } = counter();
    await using h = startHarness({ server: { warm } });
    await settle();
    expect(seen.calls).toBe(0);
    await h.initialize();
    await settle();
    expect(seen.calls).toBe(1);
    await h.initialize();
    await settle();
    expect(seen.calls).toBe(1);
    // A session opened after it works as ever.
    const { sessionId } = await h.newSession();
    expect(sessionId).toMatch(/^\d{8}-\d{6}-[0-9a-f]{8}$/);
  });

  test("a request refused before initialize does not run it", async () => {
    const { seen, warm } = counter();
    await using h = startHarness({ server: { warm } });
    const refused = await h.agent.request(acp.methods.agent.session.new, { cwd: h.root, mcpServers: [] }).then(
      () => undefined,
      (error: acp.RequestError) => error,
    );
    expect(refused?.code).toBe(-32600);
    await settle();
    expect(seen.calls).toBe(0);
  });

  test("not where every session/new is refused (native Windows)", async () => {
    const { seen, warm } = counter();
    await using h = startHarness({ server: { warm, unsupported: "Garuda runs on Windows inside WSL." } });
    await h.initialize();
    await settle();
    expect(seen.calls).toBe(0);
  });
});
