// The session network's listening socket (src/sandbox/socketHandover.ts), made from inside a real
// bwrap holder's namespaces by a child of this process: it is served here, reached from inside the
// namespace and not from the host's; a wrong or own namespace is refused before anything enters.
import { afterAll, expect, test } from "bun:test";
import {
  closeSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { listenInside, unixAnswers } from "../../src/sandbox/socketHandover.ts";
import { findNsenter, HOLDER_NAME } from "../../src/sandbox/sessionNetwork.ts";
import { describeSandbox, eventually, machineSandbox } from "../support/sandboxSupport.ts";
import { tempDir } from "../support/tempDir.ts";

const scratch = tempDir("garuda-handover-");
const port = 20_000 + Math.floor(Math.random() * 20_000);
const bwrap = machineSandbox.launcher?.kind === "bwrap" ? machineSandbox.launcher.path : "bwrap";
const holders: Bun.Subprocess[] = [];

afterAll(async () => {
  for (const holder of holders) holder.kill("SIGKILL");
  await Promise.all(holders.map((holder) => holder.exited));
  scratch[Symbol.dispose]();
});

/** A holder as sessionNetwork.ts starts it: bwrap's new user and network namespaces, cat under the holder's name. */
async function startHolder(): Promise<{ proc: Bun.Subprocess; pid: number; netIno: number }> {
  symlinkSync("/bin/cat", join(scratch.path, HOLDER_NAME));
  const infoFile = join(scratch.path, "info");
  const info = openSync(infoFile, "w");
  const proc = Bun.spawn(
    [
      bwrap,
      "--die-with-parent",
      "--unshare-user",
      "--unshare-net",
      "--ro-bind",
      "/",
      "/",
      "--info-fd",
      "3",
      "--",
      join(scratch.path, HOLDER_NAME),
    ],
    {
      stdio: ["pipe", "ignore", "inherit", info],
    },
  );
  closeSync(info);
  holders.push(proc);
  let pid = 0;
  await eventually(() => {
    pid = Number(/"child-pid":\s*(\d+)/.exec(readFileSync(infoFile, "utf8"))?.[1] ?? 0);
    return pid > 0 && readFileSync(`/proc/${pid}/cmdline`, "utf8").startsWith(join(scratch.path, HOLDER_NAME));
  }, 10_000);
  return { proc, pid, netIno: statSync(`/proc/${pid}/ns/net`).ino };
}

/** This process's open sockets, "fd socket:[inode]" each. */
function openSockets(): string[] {
  return readdirSync("/proc/self/fd").flatMap((fd) => {
    try {
      const link = readlinkSync(`/proc/self/fd/${fd}`);
      return link.startsWith("socket:") ? [`${fd} ${link}`] : [];
    } catch {
      return [];
    }
  });
}

async function insideNamespace(pid: number, command: string): Promise<string> {
  const proc = Bun.spawn(
    [
      findNsenter() as string,
      `--user=/proc/${pid}/ns/user`,
      `--net=/proc/${pid}/ns/net`,
      "--preserve-credentials",
      "--",
      "bash",
      "-c",
      command,
    ],
    { stdout: "pipe", stderr: "pipe" },
  );
  const [out] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
  return out;
}

describeSandbox(
  "the listening socket, made inside the holder's namespace",
  () => {
    test("served here, reached from inside, not from the host (negative controls: another inode and this process's own namespace are refused)", async () => {
      const { proc, pid, netIno } = await startHolder();
      expect(listenInside(pid, port, netIno + 1, scratch.path)).toEqual({
        error: "the sandbox network's holder is not in the namespace it reported ready in",
      });
      const ownNet = statSync("/proc/self/ns/net").ino;
      expect(listenInside(process.pid, port, ownNet, scratch.path)).toEqual({
        error: "the sandbox network's holder is not in the namespace it reported ready in",
      });
      expect(listenInside(999_999_999, port, netIno, scratch.path)).toEqual({
        error: "open(/proc/999999999/ns/user) failed (ENOENT)",
      });

      const made = listenInside(pid, port, netIno, scratch.path);
      if ("error" in made) throw new Error(made.error);
      // close-on-exec, all three: no process started from here inherits them
      for (const fd of [made.listener, made.user, made.net])
        expect(readFileSync(`/proc/self/fdinfo/${fd}`, "utf8")).toMatch(/flags:\s*0[0-7]*2[0-7]{6}\n/);
      expect(statSync(`/proc/self/fd/${made.net}`).ino).toBe(netIno);
      expect(statSync(`/proc/self/fd/${made.user}`).ino).toBe(statSync(`/proc/${pid}/ns/user`).ino);
      const listener = Bun.listen({
        fd: made.listener,
        socket: { open: (socket: { end(text: string): void }) => void socket.end("from garuda\n"), data() {} },
      } as unknown as Parameters<typeof Bun.listen>[0]);
      try {
        expect(await insideNamespace(pid, `exec 3<>/dev/tcp/127.0.0.1/${port}; cat <&3`)).toBe("from garuda\n");
        // the same port on the host's loopback is not this socket
        const host = await Bun.connect({ hostname: "127.0.0.1", port, socket: { data() {} } }).then(
          (socket) => (socket.end(), "connected"),
          () => "refused",
        );
        expect(host).toBe("refused");
        // a second socket on the same port in the namespace: the step that failed, with its errno
        const socketsBefore = openSockets();
        const again = listenInside(pid, port, netIno, scratch.path);
        expect(again).toEqual({ error: "bind(127.0.0.1) failed (EADDRINUSE)" });
        // the child's socket that could not be bound is not left in this process's table (shared with the child)
        expect(openSockets().filter((socket) => !socketsBefore.includes(socket))).toEqual([]);
        // the descriptors hold the namespace without the holder: entered through them once it is gone
        proc.kill("SIGKILL");
        await proc.exited;
        // gone, or a zombie nobody reaps yet: either way out of the namespace
        await eventually(() => {
          try {
            return readFileSync(`/proc/${pid}/stat`, "utf8").includes(") Z ");
          } catch {
            return true;
          }
        });
        const through = `/proc/${process.pid}/fd`;
        const viaFds = Bun.spawn(
          [
            findNsenter() as string,
            `--user=${through}/${made.user}`,
            `--net=${through}/${made.net}`,
            "--preserve-credentials",
            "--",
            "bash",
            "-c",
            `exec 3<>/dev/tcp/127.0.0.1/${port}; cat <&3`,
          ],
          { stdout: "pipe" },
        );
        expect(await new Response(viaFds.stdout).text()).toBe("from garuda\n");
      } finally {
        listener.stop(true);
        closeSync(made.user);
        closeSync(made.net);
      }
    });
  },
  "bwrap",
);

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
