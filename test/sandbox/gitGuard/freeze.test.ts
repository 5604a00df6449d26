import { afterEach, describe, expect, test } from "bun:test";
import { createFreezer } from "../../../src/sandbox/gitGuard/freeze.ts";
import { descendants } from "../../../src/sandbox/processTree.ts";
import { readProcStat } from "../../../src/sandbox/procStat.ts";

const state = (pid: number) => readProcStat(pid)?.state;
const spawned: Array<ReturnType<typeof Bun.spawn>> = [];

/** A shell with two children (one in its own session: still a descendant), all running. */
async function tree(): Promise<number[]> {
  const shell = Bun.spawn(["sh", "-c", "sleep 30 & setsid sleep 30 & wait"], { stdio: ["ignore", "ignore", "ignore"] });
  spawned.push(shell);
  for (let i = 0; i < 200 && descendants(shell.pid).length < 2; i++) await Bun.sleep(10);
  return [shell.pid, ...descendants(shell.pid)];
}

afterEach(() => {
  for (const child of spawned.splice(0)) {
    for (const pid of descendants(child.pid)) process.kill(pid, "SIGKILL");
    child.kill("SIGKILL");
  }
});

describe.if(process.platform === "linux")("freezer", () => {
  test("stops a process and every descendant until thawed", async () => {
    const pids = await tree();
    expect(pids).toHaveLength(3);
    const frozen = await createFreezer().freeze([pids[0] as number]);
    expect(frozen.pids.sort()).toEqual([...pids].sort());
    for (const pid of pids) expect(state(pid)).toBe("T");
    frozen.thaw();
    await Bun.sleep(20);
    for (const pid of pids) expect(state(pid)).not.toBe("T");
  });

  test("two freezes of the same processes: only the last thaw resumes them", async () => {
    const pids = await tree();
    const freezer = createFreezer();
    const first = await freezer.freeze([pids[0] as number]);
    const second = await freezer.freeze([pids[0] as number]);
    first.thaw();
    first.thaw(); // once only
    await Bun.sleep(20);
    for (const pid of pids) expect(state(pid)).toBe("T");
    second.thaw();
    await Bun.sleep(20);
    for (const pid of pids) expect(state(pid)).not.toBe("T");
  });

  test("a process the command stopped itself stays stopped", async () => {
    const pids = await tree();
    const [shell, child] = pids as [number, number];
    process.kill(child, "SIGSTOP");
    for (let i = 0; i < 100 && state(child) !== "T"; i++) await Bun.sleep(5);
    const frozen = await createFreezer().freeze([shell]);
    frozen.thaw();
    await Bun.sleep(20);
    expect(state(child)).toBe("T");
    expect(state(shell)).not.toBe("T");
  });

  test("no processes: nothing to stop", async () => {
    const frozen = await createFreezer().freeze([]);
    expect(frozen.pids).toEqual([]);
    frozen.thaw();
  });
});
