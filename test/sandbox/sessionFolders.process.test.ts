// The compiled binary's session folders, with real processes: every exit removes them (50
// sessions, then stdin closed); a SIGKILLed garuda's folder (with a large file in its tmp) is swept
// by the next garuda's first session, while a live garuda's is kept; a root of / or /tmp is
// refused by `garuda acp`, `garuda run` and the chat with the same message. TMPDIR points every
// garuda at a scratch temp folder, so the base is `<scratch>/garuda-<uid>`.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { setUpHome } from "../support/acpHarness.ts";
import { makeTempDir } from "../support/tempDir.ts";
import { garudaBinary } from "../support/garudaBinary.ts";

let work = "";
let binary = "";

beforeAll(
  async () => {
    work = makeTempDir("garuda-folders-process-", { real: true });
    binary = await garudaBinary();
  },
  { timeout: 180_000 },
);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

function environment(home: string, temp: string): Record<string, string> {
  return { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, TMPDIR: temp };
}

/** `garuda acp` with the SDK's client on its stdio, its temp folder `temp`. */
function startAcp(home: string, temp: string) {
  const proc = Bun.spawn([binary, "acp"], {
    cwd: home,
    env: environment(home, temp),
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  const stdin = new WritableStream<Uint8Array>({
    async write(chunk) {
      proc.stdin.write(chunk);
      await proc.stdin.flush();
    },
  });
  const connection = acp
    .client({ name: "folders-test" })
    .onNotification(acp.methods.client.session.update, () => {})
    .onRequest(acp.methods.client.session.requestPermission, () => ({ outcome: { outcome: "cancelled" } }))
    .connect(acp.ndJsonStream(stdin, proc.stdout));
  const agent = connection.agent;
  return {
    proc,
    initialize: () => agent.request(acp.methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} }),
    newSession: (cwd: string) => agent.request(acp.methods.agent.session.new, { cwd, mcpServers: [] }),
    close: () => connection.close(),
  };
}

function fixture(name: string) {
  const dir = join(work, name);
  const home = join(dir, "home");
  const temp = join(dir, "temp");
  const root = join(dir, "project");
  for (const path of [home, temp, root]) mkdirSync(path, { recursive: true });
  setUpHome(home);
  const base = join(temp, `garuda-${process.getuid?.() ?? 0}`);
  const folders = () => (existsSync(base) ? readdirSync(base).sort() : []);
  return { home, temp, root, base, folders };
}

async function until(check: () => boolean, what: string, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(25);
  }
}

describe("session folders of the compiled binary", () => {
  test("50 sessions, then stdin closed: exit 0 and no session folder left (each " +
    "session had its own, private)", async () => {
    const f = fixture("fifty");
    const garuda = startAcp(f.home, f.temp);
    await garuda.initialize();
    for (let i = 0; i < 50; i++) await garuda.newSession(f.root);
    // Each session's folder is made with its runtime, just after session/new is answered.
    await until(() => f.folders().length === 50, "50 session folders");
    const made = f.folders();
    expect(made).toHaveLength(50);
    for (const name of made) expect(name).toMatch(new RegExp(`^${garuda.proc.pid}-\\d+-\\d+-[0-9a-f]{8}$`));
    expect(readdirSync(join(f.base, made[0] as string)).sort()).toEqual([
      expect.stringMatching(/^garuda-proxy-/),
      "tmp",
    ]);
    garuda.proc.stdin.end();
    expect(await garuda.proc.exited).toBe(0);
    garuda.close();
    expect(f.folders()).toEqual([]);
    // Nothing else of Garuda's in the temp folder either (proxy sockets, hook inputs).
    expect(readdirSync(f.temp)).toEqual([`garuda-${process.getuid?.() ?? 0}`]);
  }, 120_000);

  test("SIGTERM removes the folders too", async () => {
    const f = fixture("sigterm");
    const garuda = startAcp(f.home, f.temp);
    await garuda.initialize();
    await garuda.newSession(f.root);
    await until(() => f.folders().length === 1, "the session's folder");
    garuda.proc.kill("SIGTERM");
    expect(await garuda.proc.exited).toBe(143);
    garuda.close();
    expect(f.folders()).toEqual([]);
  }, 60_000);

  test("SIGTERM the moment session/new is answered, while its runtime is built: the " +
    "runtime is closed as it arrives, no folder left", async () => {
    const f = fixture("sigterm-building");
    const garuda = startAcp(f.home, f.temp);
    await garuda.initialize();
    await garuda.newSession(f.root);
    garuda.proc.kill("SIGTERM");
    expect(await garuda.proc.exited).toBe(143);
    garuda.close();
    expect(f.folders()).toEqual([]);
  }, 60_000);

  test("a SIGKILLed garuda's folder is swept at the next garuda's first session; a " +
    "live garuda's is kept (negative control: before that session it is still " +
    "there)", async () => {
    const f = fixture("sigkill");
    const killed = startAcp(f.home, f.temp);
    await killed.initialize();
    await killed.newSession(f.root);
    const live = startAcp(f.home, f.temp);
    await live.initialize();
    await live.newSession(f.root);
    await until(() => f.folders().length === 2, "both sessions' folders");
    const [killedFolder] = f.folders().filter((name) => name.startsWith(`${killed.proc.pid}-`));
    const [liveFolder] = f.folders().filter((name) => name.startsWith(`${live.proc.pid}-`));
    expect(killedFolder).toBeDefined();
    expect(liveFolder).toBeDefined();
    // A large file in the dead session's tmp (256 MB on disk, not a sparse file).
    writeFileSync(join(f.base, killedFolder as string, "tmp", "big"), new Uint8Array(256 * 1024 * 1024).fill(1));
    killed.proc.kill("SIGKILL");
    await killed.proc.exited;
    killed.close();
    expect(f.folders()).toContain(killedFolder as string);

    // Starting and initializing sweep nothing (the sweep waits for a session: --version and
    // initialize stay fast); the first session/new does.
    const next = startAcp(f.home, f.temp);
    await next.initialize();
    await Bun.sleep(300);
    expect(f.folders()).toContain(killedFolder as string);
    await next.newSession(f.root);
    await until(() => !f.folders().includes(killedFolder as string), "the dead garuda's folder to be swept");
    expect(f.folders()).toContain(liveFolder as string);
    expect(f.folders().filter((name) => name.startsWith(`${next.proc.pid}-`))).toHaveLength(1);

    for (const garuda of [live, next]) {
      garuda.proc.stdin.end();
      expect(await garuda.proc.exited).toBe(0);
      garuda.close();
    }
    expect(f.folders()).toEqual([]);
  }, 120_000);
});

describe("wide roots, refused by every front end with the same message", () => {
  const message =
    /Garuda does not run in \/(tmp)?: it is (a system folder|the shared temp folder).*Open a project folder instead/;

  test("garuda acp: session/new in / and /tmp fails with the message (negative " +
    "control: a project folder opens)", async () => {
    const f = fixture("acp-roots");
    const garuda = startAcp(f.home, f.temp);
    await garuda.initialize();
    for (const cwd of ["/", "/tmp"]) {
      const error = await garuda.newSession(cwd).then(
        () => undefined,
        (e: unknown) => e as { message?: string },
      );
      expect(error?.message).toMatch(message);
    }
    expect(f.folders()).toEqual([]);
    expect((await garuda.newSession(f.root)).sessionId).toBeString();
    garuda.proc.stdin.end();
    expect(await garuda.proc.exited).toBe(0);
    garuda.close();
  }, 60_000);

  test.each([["run", "hello"], []])(
    "garuda %s in / and /tmp prints the message and exits non-zero",
    async (...args: string[]) => {
      const f = fixture(`cli-roots-${args.length}`);
      for (const cwd of ["/", "/tmp"]) {
        const proc = Bun.spawn([binary, ...args], {
          cwd,
          env: environment(f.home, f.temp),
          stdin: "pipe",
          stdout: "pipe",
          stderr: "pipe",
        });
        proc.stdin.end();
        const [out, err, code] = await Promise.all([
          new Response(proc.stdout).text(),
          new Response(proc.stderr).text(),
          proc.exited,
        ]);
        expect(code).not.toBe(0);
        expect(`${out}${err}`).toMatch(message);
      }
      expect(f.folders()).toEqual([]);
    },
    60_000,
  );
});
