// Nothing blocks the event loop while a session's network is made (issue 30.2): session A's first
// networked command waits for its network child (made slow here: 1.5 s), and meanwhile session B
// of the same `garuda acp` process answers a prompt within 100 ms. Before, start() waited for the
// network synchronously (Bun.sleepSync polling, a blocking connect()), and every session of the
// process waited with it. Negative control, checked by hand once: a Bun.sleepSync(1_500) in
// SessionNetworks.ready makes this test fail (B answers only after A's network is made).
import { expect, test } from "bun:test";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { garudaPaths } from "../../src/config/paths.ts";
import { ProviderKeys } from "../../src/config/providerKeys.ts";
import { prepareRuntime } from "../../src/compose/prepare.ts";
import { FakeModelClient, fake } from "../../src/model/fake.ts";
import { MAKE_NETWORK } from "../../src/sandbox/networkChild.ts";
import { descendants } from "../../src/sandbox/processTree.ts";
import { BRIDGE, contentText, ofKind, startHarness } from "../support/acpHarness.ts";
import { describeSandbox, eventually, machineSandbox } from "../support/sandboxSupport.ts";
import { makeTempDir } from "../support/tempDir.ts";

const SLOW_MS = 4_000;

/** Processes of this one making a session network (the slow wrapper, bwrap, the child). */
const makingNetwork = () =>
  descendants(process.pid).some((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").includes(MAKE_NETWORK);
    } catch {
      return false;
    }
  });

describeSandbox(
  "a session's network is made without blocking the others",
  () => {
    test("while session A's network is made (slowly), session B answers a prompt within 100 ms", async () => {
      const launcher = machineSandbox.launcher;
      if (launcher?.kind !== "bwrap") throw new Error("bwrap expected");
      const scratch = makeTempDir("garuda-netwait-");
      // bwrap as A's sandbox knows it: slow only for the network child.
      const slow = join(scratch, "slow-bwrap");
      writeFileSync(
        slow,
        `#!/bin/sh\ncase " $* " in *" ${MAKE_NETWORK} "*) sleep ${SLOW_MS / 1000};; ` +
          `esac\nexec '${launcher.path}' "$@"\n`,
      );
      chmodSync(slow, 0o755);
      const a = new FakeModelClient([
        fake.toolCall("bash", { command: "echo networked" }, { id: "toolu_net" }),
        fake.text("A done"),
      ]);
      const b = new FakeModelClient([
        fake.text("B warm"),
        ...[1, 2, 3].map((n) => fake.text(`B quiet ${n}`)),
        ...[1, 2, 3, 4, 5].map((n) => fake.text(`B answers ${n}`)),
      ]);
      let sessions = 0;
      await using h = startHarness({
        prepare: async ({ cwd, approver }, harness) => {
          const first = sessions++ === 0;
          return prepareRuntime({
            root: cwd,
            paths: garudaPaths(harness.home),
            env: { PATH: process.env.PATH, HOME: harness.home },
            keys: new ProviderKeys(),
            managedPolicy: join(harness.home, "no-managed-policy.json"),
            approver,
            selfCommand: BRIDGE,
            probe: first ? { ...machineSandbox, launcher: { ...launcher, path: slow } } : machineSandbox,
            openModel: async () => (first ? a : b),
          });
        },
      });
      await h.initialize();
      const sessionA = (await h.newSession()).sessionId;
      const sessionB = (await h.newSession()).sessionId;
      expect((await h.prompt(sessionB, "warm up")).stopReason).toBe("end_turn");
      // What B's prompt costs on this machine now, with nothing else going on in the agent.
      const quiet: number[] = [];
      for (const n of [1, 2, 3]) {
        const started = performance.now();
        expect((await h.prompt(sessionB, `quiet (${n})`)).stopReason).toBe("end_turn");
        quiet.push(performance.now() - started);
      }

      const turnA = h.prompt(sessionA, "run something with the network");
      await eventually(makingNetwork, 10_000);
      // Five prompts, the fastest counts: a loaded machine can delay any one of them, while a
      // blocked event loop (the negative control: a sleepSync in ready()) delays every one by
      // the whole network set-up.
      const took: number[] = [];
      for (const n of [1, 2, 3, 4, 5]) {
        const started = performance.now();
        const answer = await h.prompt(sessionB, `are you there? (${n})`);
        took.push(performance.now() - started);
        expect(answer.stopReason).toBe("end_turn");
      }
      // B really answered while A's network was still being made
      expect(makingNetwork()).toBe(true);
      // Within 100 ms, as on a quiet machine; on one so busy that B's prompt alone takes longer,
      // within three times what it takes there (a blocked loop costs the whole 4 s set-up).
      expect(Math.min(...took)).toBeLessThan(Math.max(100, 3 * Math.min(...quiet)));

      expect((await turnA).stopReason).toBe("end_turn");
      const done = ofKind(h.updatesOf(sessionA), "tool_call_update").find(
        (u) => u.toolCallId === "toolu_net" && u.status === "completed",
      );
      expect(contentText(done?.content)).toContain("networked");
    }, 30_000);
  },
  "bwrap",
);
