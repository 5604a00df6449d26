// Which ripgrep runner an executor holds for the file tools' searches (Executor.ripgrep): the
// embedded rg (program.ts), or the one the options name, in a sandbox of its own (runner.ts), on
// Linux where bwrap works. None elsewhere, nor where no rg is embedded: the tools then search
// with their own walk and worker.
import type { SandboxProbe } from "../probe.ts";
import { embeddedRipgrep, type RipgrepProgram } from "./program.ts";
import { type RipgrepRunner, createRipgrepRunner } from "./runner.ts";

export function executorRipgrep(options: {
  /** ExecutorOptions.ripgrep: undefined, the embedded one; null, none. */
  ripgrep: RipgrepProgram | null | undefined;
  probe: SandboxProbe;
  root: string;
  /** What sandboxed commands may not read (paths.ts denyRead), asked per search. */
  denyRead: () => readonly string[];
}): RipgrepRunner | undefined {
  const { probe } = options;
  const program = options.ripgrep === null ? undefined : (options.ripgrep ?? embeddedRipgrep());
  return program && probe.launcher?.kind === "bwrap" && probe.availability.available
    ? createRipgrepRunner({
        program,
        bwrap: probe.launcher.path,
        disableUserns: probe.launcher.disableUserns,
        root: options.root,
        denyRead: options.denyRead,
      })
    : undefined;
}
