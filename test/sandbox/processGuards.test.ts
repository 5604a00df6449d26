// The process guards (src/sandbox/processGuards.ts, applied by processWide.ts), each in a child process since they are
// process-wide: a daemon a host command detaches (setsid, its parent gone) is re-parented to
// Garuda, not to init, so the exit handlers can find it; and Garuda is not dumpable, so a command
// of the same user cannot read its environment block (where the provider key was). Negative
// controls: without the guards the daemon goes to another process and the process is dumpable.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";

const GUARDS = JSON.stringify(join(import.meta.dir, "../../src/sandbox/processWide.ts"));

const SCRIPT =
  `
import { createProcessWide } from ${GUARDS};
import { dlopen, FFIType } from ` +
  `"bun:ffi";
if (process.env.GARUDA_TEST_GUARD === "1") {
  const applied = ` +
  `await createProcessWide().guard();
  if (!applied.subreaper || ` +
  `!applied.undumpable) throw new Error("prctl failed: " + ` +
  `JSON.stringify(applied));
}
const libc = dlopen("libc.so.6", { prctl: { args: ` +
  `[FFIType.i32, FFIType.u64, FFIType.u64, FFIType.u64, FFIType.u64], returns: ` +
  `FFIType.i32 } });
const dumpable = libc.symbols.prctl(3, 0n, 0n, 0n, 0n); // ` +
  `PR_GET_DUMPABLE
// Garuda still reads its own /proc entries (the file tools ` +
  `check /proc/self/fd).
const ownFd = ` +
  `require("node:fs").readlinkSync("/proc/self/fd/0").length > 0;
const marker = ` +
  `"garuda-guard-" + process.pid;
const p = Bun.spawn(["sh", "-c", "(setsid sh -c ` +
  `'sleep 30; : " + marker + "' &); sleep 0.2"], { stdin: "ignore", stdout: ` +
  `"ignore", stderr: "ignore" });
await p.exited;
await Bun.sleep(200);
const ps ` +
  `= Bun.spawnSync(["ps", "-eo", ` +
  `"pid=,ppid=,args="]).stdout.toString().split("\\n").find((line) => ` +
  `line.includes(marker) && !line.includes("setsid"));
const [pid, ppid] = (ps ?? ` +
  `"").trim().split(/\\s+/).map(Number);
if (pid) process.kill(pid, ` +
  `"SIGKILL");
console.log(JSON.stringify({ me: process.pid, ppid, dumpable, ` +
  `ownFd }));
`;

async function probe(
  guard: boolean,
): Promise<{ me: number; ppid: number | undefined; dumpable: number; ownFd: boolean }> {
  const proc = Bun.spawn([process.execPath, "-e", SCRIPT], {
    stdout: "pipe",
    stderr: "inherit",
    env: { PATH: process.env.PATH, GARUDA_TEST_GUARD: guard ? "1" : "0" },
  });
  const out = await new Response(proc.stdout).text();
  await proc.exited;
  return JSON.parse(out.trim().split("\n").at(-1) as string);
}

const REAP_SCRIPT =
  `
import { createProcessWide } from ${GUARDS};
import { processTable } from ` +
  `${JSON.stringify(join(import.meta.dir, "../../src/sandbox/processTree.ts"))};
await ` +
  `createProcessWide().guard();
const zombies = () => ` +
  `[...processTable()].filter(([, entry]) => entry.ppid === process.pid && ` +
  `entry.zombie).length;
// Three orphans that exit at once: adopted by this ` +
  `process, they become its zombies.
const p = Bun.spawn(["sh", "-c", "(sleep 0.2 ` +
  `&); (sleep 0.2 &); (sleep 0.2 &); sleep 0.1"], { stdin: "ignore", stdout: ` +
  `"ignore", stderr: "ignore" });
await p.exited;
await Bun.sleep(1_000);
const ` +
  `early = zombies();
// Reaped at the second sweep (one every 5 s) at the ` +
  `latest: watched for until then, not slept through.
const deadline = Date.now() ` +
  `+ 11_000;
while (zombies() > 0 && Date.now() < deadline) await ` +
  `Bun.sleep(100);
console.log(JSON.stringify({ early, late: zombies() }));
`;

describe.skipIf(process.platform !== "linux")("process guards", () => {
  test("adopted processes that exit are reaped within two sweeps (they are zombies before)", async () => {
    const proc = Bun.spawn([process.execPath, "-e", REAP_SCRIPT], {
      stdout: "pipe",
      stderr: "inherit",
      env: { PATH: process.env.PATH },
    });
    const out = await new Response(proc.stdout).text();
    await proc.exited;
    const { early, late } = JSON.parse(out.trim().split("\n").at(-1) as string);
    expect(early).toBe(3);
    expect(late).toBe(0);
  }, 30_000);

  test(
    "a detached daemon is re-parented to Garuda, which is not dumpable and still " +
      "reads its own /proc (without the guards: neither)",
    async () => {
      const guarded = await probe(true);
      expect(guarded.ppid).toBe(guarded.me);
      expect(guarded.dumpable).toBe(0);
      expect(guarded.ownFd).toBe(true);
      const plain = await probe(false);
      expect(plain.ppid).toBeDefined();
      expect(plain.ppid).not.toBe(plain.me);
      expect(plain.dumpable).toBe(1);
    },
  );
});
