// The exit codes of `garuda run`, for scripts and CI. Kept in a file of their own (no imports)
// so `garuda run --help` can print them without loading anything else.

export const EXIT = {
  /** The task ran to its end and nothing was denied. */
  done: 0,
  /** A setup problem, a bad option, a model or provider error. */
  error: 1,
  /** A limit ended the turn: the step limit, the token budget, repeated calls, the answer's length, or a refusal. */
  limit: 2,
  /** The turn ended, but a permission was denied: something the agent wanted to do did not happen. */
  denied: 3,
  /** Stopped by Ctrl-C (SIGINT). */
  interrupted: 130,
  /** Stopped by SIGTERM. */
  terminated: 143,
} as const;

export const RUN_DESCRIPTION = "Run one task headless (scripts, CI) and exit; the exit code says how it ended.";

/** The rest of `garuda run --help`. */
export const RUN_HELP = `The answer goes to stdout; tool calls, thinking and notices to stderr. --format json prints
one JSON object per line instead: start, each event of the turn, and a last "result" line.
Nothing can be approved during the run: a call that would ask is denied, unless an --allow
rule covers it (rules as in the settings: 'bash(npm test *)', 'edit_file(src/**)', 'web_fetch(docs.rs)').
Commands run in the OS sandbox without asking, as in the chat. The team policy still wins.

Exit codes:
  0    done
  1    error (setup, a bad option, the model or provider failed)
  2    a limit ended the turn (steps, token budget, repeated calls, answer length, refusal)
  3    done, but a permission was denied (the run says what; allow it with --allow)
  130  interrupted (Ctrl-C)
  143  terminated (SIGTERM)`;
