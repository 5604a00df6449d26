// The git guard's notes reach the tool result the model and the user see: a bash call's result,
// and a process_manager job's output while the job still runs (and what stop returns). Real
// sandbox, real git; the marker program must not run on the host.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { bashTool } from "../../src/tools/bash.ts";
import { processManagerTool } from "../../src/tools/processManager.ts";
import { type MarkerProgram, evilConfigScript, git, markerProgram, probe } from "../support/gitAttack.ts";
import { describeSandbox, eventually } from "../support/sandboxSupport.ts";
import { type Workspace, call, execContext, workspace } from "../support/execFixtures.ts";

describeSandbox(
  "git guard notes in tool results",
  () => {
    let ws: Workspace;
    let marker: MarkerProgram;
    beforeAll(async () => {
      ws = await workspace("sandbox");
      marker = markerProgram(join(ws.home, "..", "bin"));
      git(ws.root, ws.home, "init", "-q");
      git(ws.root, ws.home, "commit", "-q", "--allow-empty", "-m", "first");
    });
    afterAll(async () => {
      await ws.dispose();
    });

    const plant = (dir: string) => `git init -q ${dir} && ${evilConfigScript(`${dir}/.git/config`, marker.path)}`;

    test("bash: the result says what Garuda moved and what to do instead", async () => {
      const result = await call(bashTool(), { command: `${plant("one")}; echo made` }, execContext(ws));
      expect(result.output).toContain("made");
      expect(result.output).toContain(
        "[Garuda: the command made one/.git, a git repository; its config sets core.fsmonitor",
      );
      expect(result.output).toContain(
        "run the git command outside the sandbox (outside_sandbox: true; the user is asked first)",
      );
      expect(probe(marker, ws.home, [join(ws.root, "one")])).toEqual([]);
    });

    test("process_manager: the job's output says so while it runs, and stop returns it", async () => {
      const tool = processManagerTool({ startWaitMs: 200 });
      const ctx = execContext(ws);
      const started = await call(
        tool,
        { action: "start", command: `sleep 0.5; ${plant("two")}; echo made; sleep 60` },
        ctx,
      );
      expect(started.output).toStartWith("Started p1");
      let output = "";
      await eventually(() => {
        void call(tool, { action: "output", id: "p1" }, ctx).then((result) => {
          output = result.output;
        });
        return output.includes("[Garuda:");
      }, 10_000);
      expect(output).toContain("— running for");
      expect(output).toContain("[Garuda: the command made two/.git, a git repository; its config sets core.fsmonitor");
      expect(probe(marker, ws.home, [join(ws.root, "two")])).toEqual([]);
      const stopped = await call(tool, { action: "stop", id: "p1" }, ctx);
      expect(stopped.output).toContain("[Garuda: the command made two/.git");
    }, 30_000);
  },
  "bwrap",
);
