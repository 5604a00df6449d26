import { type CliContext, createCliContext } from "../context.ts";
import { describeFailure } from "../errors.ts";
import { runForget } from "./forget.ts";
import { runInteractive } from "./interactive.ts";
import { showLines } from "./show.ts";
import { loadSetupState } from "./state.ts";
import { keylessModel, runKeyless, runWithStdinKey } from "./stdinKey.ts";
import { isInteractive, processIO, type SetupIO } from "./terminal.ts";

export interface SetupOptions {
  /** The CLI context; by default one made from process.env (which takes the keys out of it). */
  context?: CliContext;
  /** --model: the model to set up (no model menu), or for --show/--forget the model to look at. */
  model?: string;
  /** --key-stdin: read the key from stdin (one line) instead of asking; needs a model. */
  keyStdin?: boolean;
  /** False with --no-check: save the key without the check request. Default true. */
  check?: boolean;
  /** --show: report the model and keys, masked; needs no terminal. */
  show?: boolean;
  /** --forget [NAME]: remove a key from ~/.garuda/credentials. */
  forget?: boolean;
  forgetName?: string;
  /** The streams; by default the process's own. */
  io?: SetupIO;
  /** The check's time limit (default 10 s). */
  checkTimeoutMs?: number;
}

const EXIT_OK = 0;
const EXIT_ERROR = 1;
const EXIT_USAGE = 2;

function usageProblem(options: SetupOptions): string | undefined {
  const modes = [options.show && "--show", options.forget && "--forget", options.keyStdin && "--key-stdin"].filter(
    Boolean,
  );
  if (modes.length > 1) return `${modes.join(" and ")} do not go together`;
  if (options.forgetName !== undefined && !options.forget)
    return `unexpected argument "${options.forgetName}" (did you mean --forget ${options.forgetName}?)`;
  return undefined;
}

const NO_TERMINAL = [
  "garuda setup asks questions and reads the key hidden, so it needs a terminal. Run it in a terminal,",
  "or, from a script: printf '%s\\n' \"$KEY\" | garuda setup --model <model> --key-stdin",
  "and a local server's model needs no key: garuda setup --model ollama/<model>",
  "(`garuda setup --show` works anywhere.)",
].join("\n");

/**
 * `garuda setup` and `garuda acp setup` (ACP Terminal Auth): returns the exit code, 0 only when
 * a model and its key are saved (or, with --show/--forget, when that worked). 1 on an error
 * or a refused key, 2 on a usage error, 130 when the user cancelled. Writes its questions and
 * summary to stdout and problems to stderr; nothing under ~/.garuda changes before the last step.
 */
export async function runSetup(options: SetupOptions = {}): Promise<number> {
  const io = options.io ?? processIO();
  try {
    const problem = usageProblem(options);
    if (problem) {
      io.stderr.write(`garuda setup: ${problem}.\n`);
      return EXIT_USAGE;
    }
    const ctx = options.context ?? createCliContext(process.env);
    if (options.show) {
      const report = showLines(ctx, options.model);
      io.stdout.write(`${report.lines.join("\n")}\n`);
      return report.ok ? EXIT_OK : EXIT_ERROR;
    }
    if (options.forget) {
      return await runForget(io, ctx, {
        ...(options.forgetName ? { name: options.forgetName } : {}),
        ...(options.model ? { model: options.model } : {}),
      });
    }
    const check = options.check ?? true;
    const timeout = options.checkTimeoutMs ? { checkTimeoutMs: options.checkTimeoutMs } : {};
    if (options.keyStdin) {
      const state = loadSetupState(ctx);
      return await runWithStdinKey(io, state, {
        ...(options.model ? { model: options.model } : {}),
        check,
        ...timeout,
      });
    }
    if (!isInteractive(io)) {
      // A local server's model needs no key, so no terminal either.
      const state = options.model ? loadSetupState(ctx) : undefined;
      const keyless = state && options.model ? keylessModel(state, options.model) : undefined;
      if (state && keyless) return await runKeyless(io, state, keyless, { check, ...timeout });
      io.stderr.write(`${NO_TERMINAL}\n`);
      return EXIT_ERROR;
    }
    const state = loadSetupState(ctx);
    return await runInteractive(io, state, { ...(options.model ? { model: options.model } : {}), check, ...timeout });
  } catch (error) {
    const failure = describeFailure(error);
    io.stderr.write(`${failure.text}\n`);
    return failure.exitCode;
  }
}
