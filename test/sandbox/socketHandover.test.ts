// The hand-over of a listening socket (src/sandbox/socketHandover.ts), outside any sandbox: a
// process makes the socket and becomes `cat` holding it; Garuda copies it out only when it lives
// in the network namespace named (negative control: any other namespace is refused).
import { afterAll, expect, test } from "bun:test";
import { existsSync, readFileSync, readlinkSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HOLDER_NAME, takeListener, unixAnswers } from "../../src/sandbox/socketHandover.ts";
import { eventually } from "../support/sandboxSupport.ts";
import { tempDir } from "../support/tempDir.ts";

const scratch = tempDir("garuda-handover-");
const ready = join(scratch.path, "ready");
const port = 20_000 + Math.floor(Math.random() * 20_000);
const module = join(import.meta.dir, "../../src/sandbox/socketHandover.ts");
const holder = Bun.spawn([process.execPath, "-e", `const { listenAndHold } = await import(${JSON.stringify(module)}); console.error(listenAndHold(${port}, ${JSON.stringify(ready)})); process.exit(1);`], {
  stdin: "pipe",
  stdout: "ignore",
  stderr: "inherit",
});

afterAll(async () => {
  holder.stdin.end();
  await holder.exited;
  scratch[Symbol.dispose]();
});

test("the maker becomes cat holding the socket; it is copied out and accepts (negative control: another namespace's inode is refused)", async () => {
  await eventually(() => existsSync(ready), 10_000);
  const [pid, fd] = readFileSync(ready, "utf8").trim().split(" ").map(Number) as [number, number];
  expect(pid).toBe(holder.pid);
  await eventually(() => readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")[0] === HOLDER_NAME);
  expect(readlinkSync(`/proc/${pid}/exe`)).toMatch(/\/cat$/);
  const netIno = statSync(`/proc/${pid}/ns/net`).ino;

  expect(takeListener(pid, fd, netIno + 1)).toEqual({ error: "the sandbox network's socket is not in the sandbox's network namespace" });
  expect(takeListener(pid, 999, netIno)).toEqual({ error: "pidfd_getfd failed (EBADF)" });

  const taken = takeListener(pid, fd, netIno);
  if (!("fd" in taken)) throw new Error(taken.error);
  const listener = Bun.listen({ fd: taken.fd, socket: { open: (socket: { end(text: string): void }) => void socket.end("from the copy\n"), data() {} } } as unknown as Parameters<typeof Bun.listen>[0]);
  try {
    const answer = await new Promise<string>((resolve, reject) => {
      let text = "";
      Bun.connect({ hostname: "127.0.0.1", port, socket: { data: (_s, bytes) => void (text += Buffer.from(bytes).toString()), close: () => resolve(text), error: (_s, error) => reject(error) } }).catch(reject);
    });
    expect(answer).toBe("from the copy\n");
  } finally {
    listener.stop(true);
  }
});

test("the holder ends when its stdin does (Garuda closed it or is gone)", async () => {
  holder.stdin.end();
  await holder.exited;
  expect(holder.exitCode).toBe(0);
});

test("unixAnswers: a listening socket, even this process's own, checked without its loop (negative controls: a plain file, a closed socket, no file)", () => {
  const path = join(scratch.path, "live.sock");
  const listener = Bun.listen({ unix: path, socket: { data() {} } });
  try {
    expect(unixAnswers(path)).toBe(true);
  } finally {
    listener.stop(true);
  }
  expect(unixAnswers(path)).toBe(false);
  const plain = join(scratch.path, "plain.sock");
  writeFileSync(plain, "");
  expect(unixAnswers(plain)).toBe(false);
  expect(unixAnswers(join(scratch.path, "missing.sock"))).toBe(false);
});
