// The subreaper: a daemon a host command detaches (setsid, its parent gone) is re-parented to
// Garuda, not to init, so the exit handlers can find it. Run in a child process, since the
// setting is for the whole process. Negative control: without it the daemon goes to init.
import { expect, test } from "bun:test";
import { join } from "node:path";

const SCRIPT = `
import { adoptOrphans } from ${JSON.stringify(join(import.meta.dir, "../../src/sandbox/subreaper.ts"))};
if (process.env.GARUDA_TEST_ADOPT === "1" && !(await adoptOrphans())) throw new Error("prctl failed");
const marker = "garuda-subreaper-" + process.pid;
const p = Bun.spawn(["sh", "-c", "(setsid sh -c 'sleep 30; : " + marker + "' &); sleep 0.2"], { stdin: "ignore", stdout: "ignore", stderr: "ignore" });
await p.exited;
await Bun.sleep(200);
const ps = Bun.spawnSync(["ps", "-eo", "pid=,ppid=,args="]).stdout.toString().split("\\n").find((line) => line.includes(marker) && !line.includes("setsid"));
const [pid, ppid] = (ps ?? "").trim().split(/\\s+/).map(Number);
if (pid) process.kill(pid, "SIGKILL");
console.log(JSON.stringify({ me: process.pid, ppid }));
`;

async function daemonParent(adopt: boolean): Promise<{ me: number; ppid: number | undefined }> {
  const proc = Bun.spawn([process.execPath, "-e", SCRIPT], { stdout: "pipe", stderr: "inherit", env: { PATH: process.env.PATH, GARUDA_TEST_ADOPT: adopt ? "1" : "0" } });
  const out = await new Response(proc.stdout).text();
  await proc.exited;
  return JSON.parse(out.trim().split("\n").at(-1) as string);
}

test.skipIf(process.platform !== "linux")("a detached daemon of a host command is re-parented to Garuda (without the subreaper: to another process)", async () => {
  const adopted = await daemonParent(true);
  expect(adopted.ppid).toBe(adopted.me);
  const plain = await daemonParent(false);
  expect(plain.ppid).toBeDefined();
  expect(plain.ppid).not.toBe(plain.me);
});
