// Every file tool reads only what its check approved, raced for real: a sandboxed process (real
// bwrap, through the executor) swaps the project's folders and files for links to a folder outside
// the project in a tight loop, while grep, glob, find_definition, symbols and read_file run against
// it through the registry and the real permission engine, for several seconds. No result may hold a
// byte of an outside file, nor a name from the outside folder (a walk never leaves its root).
// Positive controls: the loop really swapped (its counter, and links seen from the host), and the
// tools really found the project's own text between swaps.
import { afterEach, beforeEach, expect, test } from "bun:test";
import { existsSync, lstatSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createPermissionEngine } from "../../src/permission/engine.ts";
import type { RipgrepRunner } from "../../src/sandbox/ripgrep/runner.ts";
import type { RunningProcess } from "../../src/sandbox/types.ts";
import { createFileTools } from "../../src/tools/fileTools.ts";
import { type CallContext, ToolRegistry } from "../../src/tools/registry.ts";
import { ripgrepHere, testRipgrep } from "../support/ripgrep.ts";
import { describeSandbox } from "../support/sandboxSupport.ts";
import { type Workspace, workspace } from "../support/execFixtures.ts";
import { writeFiles } from "../support/toolFixtures.ts";

const RACE_MS = 6_000;
/** In every outside file and name; never in the project. */
const OUTSIDE = "OUTSIDE";

const insideSource = (n: number) => `export function insideFn${n}() {\n  return "INSIDE_MARK ${n}";\n}\n`;
const outsideSource =
  `export function insideFn0() {\n  return "${OUTSIDE}_MARK secret bytes";\n}\n// ` + `${OUTSIDE} INSIDE_MARK\n`;

/**
 * The attacker, run by Bun inside the sandbox (thousands of swaps a second; a shell loop of mv
 * and ln manages a few dozen): swaps src/ for a link to the outside folder, src/deep/ likewise,
 * the files src/a.ts and top.ts for links to an outside file, and src/c.ts for a link to the
 * project's .env, over and over, counting rounds.
 */
const ATTACKER = `
import { renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
const [root, outside] = process.argv.slice(2);
process.chdir(root);
const swap = (path, target) => {
  try {
    renameSync(path, path + ".real");
    symlinkSync(target, path);
    rmSync(path);
    renameSync(path + ".real", path);
  } catch {}
};
for (let n = 1; ; n++) {
  swap("src", outside);
  swap("src/deep", outside + "/deep");
  swap("src/a.ts", outside + "/a.ts");
  swap("top.ts", outside + "/a.ts");
  swap("src/c.ts", root + "/.env");
  if (n % 100 === 0) writeFileSync(".rounds", String(n));
}
`;

describeSandbox("file tools against a sandboxed process swapping folders and links", () => {
  let ws: Workspace;
  // A workspace per way: an attacker stopped mid-swap leaves links behind.
  beforeEach(async () => {
    ws = await workspace("sandbox");
  });
  afterEach(async () => {
    await ws.dispose();
  });

  // Both ways the tools search: their own walk, and through the embedded ripgrep (this machine's rg).
  const ways: Array<[string, boolean]> = [
    ["own search", false],
    ...(ripgrepHere ? [["ripgrep", true] as [string, boolean]] : []),
  ];
  test.each(ways)(
    `for ${RACE_MS / 1000} s no tool returns a byte or a name from outside the project (%s)`,
    async (_way, viaRipgrep) => {
      const outside = join(ws.home, "outside");
      writeFiles(outside, {
        "a.ts": outsideSource,
        [`${OUTSIDE}_only_name.ts`]: outsideSource,
        "deep/b.ts": outsideSource,
        [`deep/${OUTSIDE}_deep_name.ts`]: outsideSource,
      });
      writeFiles(ws.root, {
        // A secret inside the project, which the tools never show; the attacker links src/c.ts to it.
        ".env": `TOKEN=${OUTSIDE}_ENV_SECRET\n`,
        "top.ts": insideSource(9),
        "src/a.ts": insideSource(0),
        "src/c.ts": insideSource(1),
        "src/deep/b.ts": insideSource(2),
        "src/deep/d.ts": insideSource(3),
      });
      const { tools } = createFileTools({ home: ws.home });
      const runner = viaRipgrep ? testRipgrep(ws.root) : undefined;
      let answeredByRipgrep = 0;
      const ripgrepUsed: RipgrepRunner = {
        run: async (request) => {
          const outcome = await (runner as RipgrepRunner).run(request);
          if (outcome.kind === "done") answeredByRipgrep++;
          return outcome;
        },
      };
      const registry = new ToolRegistry(tools);
      const ctx: CallContext = {
        root: ws.root,
        home: ws.home,
        mode: "build",
        signal: new AbortController().signal,
        executor: viaRipgrep ? { ...ws.executor, ripgrep: ripgrepUsed } : ws.executor,
        sandbox: ws.executor.spec(),
        // No approver: a call whose check sees a path outside the project is refused, not asked.
        engine: createPermissionEngine({ root: ws.root, home: ws.home, sandboxAvailable: true }),
        emit: () => {},
        beforeWrite: async () => {},
      };
      const calls: Array<[string, Record<string, unknown>]> = [
        ["grep", { pattern: "_MARK" }],
        ["grep", { pattern: "MARK", mode: "files", path: "src" }],
        ["grep", { pattern: "MARK", path: "src/deep", context: 2 }],
        ["grep", { pattern: "MARK", path: "src/a.ts" }],
        ["glob", { pattern: "**/*.ts" }],
        ["glob", { pattern: "src/deep/*" }],
        ["find_definition", { name: "insideFn0" }],
        ["find_definition", { name: "insideFn0", path: "src/a.ts" }],
        ["symbols", { path: "src/a.ts" }],
        ["read_file", { path: "top.ts" }],
        ["read_file", { path: "src/a.ts" }],
      ];

      const script = join(ws.executor.tmpDir, "attacker.mjs");
      writeFileSync(script, ATTACKER);
      const command = [process.execPath, script, ws.root, outside].map((word) => `'${word}'`).join(" ");
      const attacker: RunningProcess = await ws.executor.start({ command, cwd: ws.root, sandbox: ws.executor.spec() });
      const leaks: string[] = [];
      const found = new Map<string, number>();
      let runs = 0;
      let linksSeen = 0;
      const lookAtSrc = () => {
        try {
          if (lstatSync(join(ws.root, "src")).isSymbolicLink()) linksSeen++;
        } catch {
          // Between two renames: neither there.
        }
      };
      // Also looked at while the tools wait (a search through rg waits for its sandbox): on a loaded
      // machine few calls end while src/ is a link.
      const sampler = setInterval(lookAtSrc, 1);
      try {
        const until = performance.now() + RACE_MS;
        let id = 0;
        while (performance.now() < until) {
          for (const [name, input] of calls) {
            const outcome = await registry.run({ id: `toolu_${++id}`, name, input }, ctx);
            runs++;
            if (outcome.output.includes(OUTSIDE) || outcome.output.includes("secret bytes"))
              leaks.push(`${name} ${JSON.stringify(input)}:\n${outcome.output}`);
            if (/INSIDE_MARK|insideFn|src\/c\.ts/.test(outcome.output)) found.set(name, (found.get(name) ?? 0) + 1);
            // Looked at after every call: a search through rg takes ~10 ms (its sandbox), so rounds
            // are few, and src/ is a link for a small part of each swap.
            lookAtSrc();
          }
        }
      } finally {
        clearInterval(sampler);
        await attacker.stop();
      }
      const rounds = existsSync(join(ws.root, ".rounds")) ? Number(readFileSync(join(ws.root, ".rounds"), "utf8")) : 0;
      expect(leaks).toEqual([]);
      // The race was real: the loop ran many rounds, and the host saw src/ as a link.
      expect(rounds).toBeGreaterThanOrEqual(50); // hundreds on an idle machine; a loaded one still swaps
      expect(linksSeen).toBeGreaterThan(0);
      // Every call ran while the attacker swapped (several times each on an idle machine; once when the suite is busy).
      expect(runs).toBeGreaterThanOrEqual(calls.length);
      // And the tools did their job between swaps.
      if (viaRipgrep) expect({ answeredByRipgrep: answeredByRipgrep > 0 }).toEqual({ answeredByRipgrep: true });
      for (const name of ["grep", "glob", "find_definition", "symbols", "read_file"])
        expect({ name, found: (found.get(name) ?? 0) > 0 }).toEqual({ name, found: true });
    },
    RACE_MS + 60_000,
  );
});
