// The ripgrep runner for tests run from source (where no rg is embedded): the rg the build embeds
// for this machine (scripts/ripgrepBuild.ts, from the build cache: `bun scripts/ripgrepBuild.ts`
// or any build puts it there; a test never fetches it), else this machine's rg, gzipped as the
// build embeds it; GARUDA_TEST_RG=<path> names another. Run in the same sandbox the binary uses.
// Undefined where there is none of them or no bwrap (the tests that need it are skipped, saying so).
import { existsSync, linkSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { hostTarget } from "../../scripts/buildTargets.ts";
import { ripgrepFor } from "../../scripts/ripgrepBuild.ts";
import { type RipgrepProgram, ripgrepFromFile } from "../../src/sandbox/ripgrep/program.ts";
import {
  createRipgrepRunner,
  type RipgrepRunner,
  type RipgrepRunnerOptions,
} from "../../src/sandbox/ripgrep/runner.ts";
import type { ToolContext } from "../../src/tools/types.ts";
import { makeTempDir } from "./tempDir.ts";

const bwrap = Bun.which("bwrap");
const host = hostTarget();
const named = process.env.GARUDA_TEST_RG;
const built = named || !host ? undefined : await ripgrepFor(host, { fetch: false, log: () => {} });
const machine = named ?? Bun.which("rg");
export const ripgrepHere = (built !== undefined || machine !== null) && bwrap !== null && process.platform === "linux";

/** The gzipped rg the tests run: the build's, or this machine's gzipped once per test file. */
const gz = !ripgrepHere ? "" : (built ?? join(makeTempDir("garuda-rg-"), "rg-linux-x64.gz"));
if (ripgrepHere && !existsSync(gz)) writeFileSync(gz, gzipSync(await Bun.file(machine as string).bytes()));
/** The gzipped rg the tests run ("" where none). */
export const testRipgrepGz = gz;

/** The rg the tests run, as the build embeds it (for a runner made with other options). */
export function testRipgrepProgram(): RipgrepProgram {
  if (!ripgrepHere) throw new Error("no rg or bwrap here");
  return ripgrepFromFile(gz);
}

/** A runner over `root`, hiding `denyRead` inside it as commands' sandbox would. */
export function testRipgrep(
  root: string,
  denyRead: string[] = [],
  limits: Pick<RipgrepRunnerOptions, "stallMs"> = {},
): RipgrepRunner {
  if (!ripgrepHere) throw new Error("no rg or bwrap here");
  return createRipgrepRunner({
    program: ripgrepFromFile(gz),
    bwrap: bwrap as string,
    disableUserns: true,
    root,
    denyRead: () => denyRead,
    ...limits,
  });
}

/** Gives a test session's tools `runner`, counting the searches it answered (the rest fell back). */
export function useRipgrep(s: { ctx: { executor: ToolContext["executor"] } }, runner: RipgrepRunner): { used: number } {
  const counted = { used: 0 };
  s.ctx.executor = {
    ...s.ctx.executor,
    ripgrep: {
      run: async (request) => {
        const outcome = await runner.run(request);
        if (outcome.kind === "done") counted.used++;
        return outcome;
      },
    },
  };
  return counted;
}

/**
 * A home whose ~/.ssh/id_ed25519 holds `text`, hard-linked into the project as `linkName`: a secret under another name.
 */
export function secretHardLink(root: string, linkName: string, text: string): string {
  const home = makeTempDir("garuda-home-");
  mkdirSync(join(home, ".ssh"));
  writeFileSync(join(home, ".ssh", "id_ed25519"), text);
  linkSync(join(home, ".ssh", "id_ed25519"), join(root, linkName));
  return home;
}
