// The git guard when Garuda itself is killed with SIGKILL mid-command (gitGuardAgent.ts stands in
// for Garuda). The sandbox dies with it (bwrap's --die-with-parent). What the guard had moved
// aside stays moved; what a command planted while the guard could not look (here: Garuda stopped
// with SIGSTOP first, so its watch reads nothing) is found by the next start's sweep, which
// leaves the user's own repositories alone. Negative control: before that sweep, the plant that
// outlived the kill makes the host's git run the marker.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { createExecutor } from "../../../src/sandbox/executor.ts";
import { type MarkerProgram, evilConfigScript, git, markerProgram, probe } from "../../support/gitAttack.ts";
import {
  SELF_COMMAND,
  describeSandbox,
  eventually,
  machineSandbox,
  marker as sleepTag,
  sleepers,
} from "../../support/sandboxSupport.ts";
import { makeTempDir } from "../../support/tempDir.ts";

let scratch: string;
let home: string;
let marker: MarkerProgram;

function project(name: string): string {
  const root = join(scratch, name);
  mkdirSync(root, { recursive: true });
  git(root, home, "init", "-q");
  git(root, home, "commit", "-q", "--allow-empty", "-m", "first");
  return root;
}

/** Starts the stand-in Garuda with one sandboxed command; its stdout so far. */
function agent(root: string, command: string): { proc: ReturnType<typeof Bun.spawn>; output: () => string } {
  const proc = Bun.spawn(
    [process.execPath, join(import.meta.dir, "../../fixtures/gitGuardAgent.ts"), root, home, command],
    {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home },
      stdout: "pipe",
      stderr: "inherit",
    },
  );
  let text = "";
  void (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of proc.stdout as ReadableStream<Uint8Array>)
      text += decoder.decode(chunk, { stream: true });
  })();
  return { proc, output: () => text };
}

const evilNested = (dir: string) =>
  [
    `git init -q "$TMPDIR/k"`,
    evilConfigScript("$TMPDIR/k/.git/config", marker.path),
    `mkdir -p ${dir} && mv "$TMPDIR/k/.git" ${dir}/.git`,
  ].join(" && ");

describeSandbox(
  "git guard when Garuda is killed mid-command",
  () => {
    beforeAll(() => {
      scratch = makeTempDir("garuda-gitguard-kill-", { real: true });
      home = join(scratch, "home");
      mkdirSync(home);
      writeFileSync(
        join(home, ".gitconfig"),
        "[user]\n\tname = U\n\temail = u@example.invalid\n[init]\n\tdefaultBranch = main\n",
      );
      marker = markerProgram(join(scratch, "bin"));
    });
    afterAll(async () => {
      if (scratch) await rm(scratch, { recursive: true, force: true });
    });

    test("killed after the guard acted: the sandbox is gone with it, what was moved " +
      "stays moved, git on the host runs nothing", async () => {
      const root = project("acted");
      const tag = sleepTag();
      const garuda = agent(root, `${evilNested("sub")}; echo PLANTED; sleep ${tag}`);
      try {
        await eventually(() => garuda.output().includes("[Garuda: the command made sub/.git"), 30_000);
        await eventually(() => sleepers(tag).length === 1, 10_000);
        garuda.proc.kill("SIGKILL");
        await garuda.proc.exited;
        await eventually(() => sleepers(tag).length === 0, 5_000);
        marker.reset();
        expect(probe(marker, home, [root, join(root, "sub")])).toEqual([]);
        // The next start: its sweep finds nothing more to do.
        const next = await createExecutor({ root, home, selfCommand: SELF_COMMAND, probe: machineSandbox });
        expect(next.startupNotices).toEqual([]);
        await next.shutdown();
      } finally {
        garuda.proc.kill("SIGKILL");
      }
    }, 60_000);

    test("killed while no command ran: the next start does not sweep, so a repository " +
      "you made meanwhile, whose config runs a program, is left alone", async () => {
      const root = project("idle");
      const garuda = agent(root, "echo done");
      try {
        await eventually(() => garuda.output().includes("ended"), 30_000);
        garuda.proc.kill("SIGKILL");
        await garuda.proc.exited;
        git(root, home, "init", "-q", "vendor/mine");
        git(join(root, "vendor/mine"), home, "config", "core.hooksPath", ".githooks");
        const next = await createExecutor({ root, home, selfCommand: SELF_COMMAND, probe: machineSandbox });
        try {
          expect(next.startupNotices).toEqual([]);
          const first = await next.run({ command: "true", cwd: root, sandbox: next.spec() });
          expect(first.output).toBe("");
          expect(existsSync(join(root, "vendor/mine/.git/HEAD"))).toBe(true);
        } finally {
          await next.shutdown();
        }
      } finally {
        garuda.proc.kill("SIGKILL");
      }
    }, 60_000);

    test("killed while it could not look: the next start's sweep moves the plant aside " +
      "and says so, and leaves the user's own repository (whose config runs a " +
      "program) alone (negative control: before the sweep, git on the host runs the " +
      "marker)", async () => {
      const root = project("frozen");
      // The user's own nested repository, with a program in its config: theirs to have.
      git(root, home, "init", "-q", "vendor/own");
      git(join(root, "vendor/own"), home, "config", "alias.mine", `!${marker.path} mine`);
      const tag = sleepTag();
      const garuda = agent(
        root,
        `while [ ! -e go ]; do sleep 0.02; done; ${evilNested("sub")}; touch planted; sleep ${tag}`,
      );
      try {
        // "started": the guard walked the tree and watches it (it does so before the command starts).
        await eventually(() => garuda.output().includes("started"), 30_000);
        garuda.proc.kill("SIGSTOP");
        writeFileSync(join(root, "go"), "");
        await eventually(() => existsSync(join(root, "planted")), 30_000);
        garuda.proc.kill("SIGKILL");
        await garuda.proc.exited;
        await eventually(() => sleepers(tag).length === 0, 5_000);

        marker.reset();
        expect(probe(marker, home, [join(root, "sub")]).length).toBeGreaterThan(0);
        marker.reset();

        const next = await createExecutor({ root, home, selfCommand: SELF_COMMAND, probe: machineSandbox });
        try {
          const notices = next.startupNotices.join("\n");
          expect(notices).toContain("a Garuda session was killed while a command ran in the sandbox here");
          expect(notices).toContain("made sub/.git, a git repository; its config sets core.fsmonitor");
          expect(notices).not.toContain("vendor/own");
          expect(probe(marker, home, [root, join(root, "sub")])).toEqual([]);
          expect(existsSync(join(root, "vendor/own/.git/HEAD"))).toBe(true);
          expect(readdirSync(join(root, ".garuda/quarantine")).length).toBeGreaterThan(1);
          // The model hears it too: the next sandboxed command's output carries it.
          const first = await next.run({ command: "true", cwd: root, sandbox: next.spec() });
          expect(first.output).toContain("made sub/.git");
        } finally {
          await next.shutdown();
        }
      } finally {
        garuda.proc.kill("SIGKILL");
      }
    }, 90_000);
  },
  "bwrap",
);
