// The exit codes of `garuda run`, for scripts and CI. Kept in a file of their own (no imports)
// so `garuda run --help` can print them without loading anything else.

export const EXIT = {
  /** The task ran to its end and nothing was denied. */
  done: 0,
  /** A setup problem, no task, a /command that did not run, a model or provider error. */
  error: 1,
  /** A limit ended the turn: the step limit, the token budget, repeated calls, the answer's length, or a refusal. */
  limit: 2,
  /** The turn ended, but a permission was denied: something the agent wanted to do did not happen. */
  denied: 3,
  /** A wrong command line: an unknown option, a value that is not allowed, a bad --allow rule (before anything ran). */
  usage: 2,
  /** Stopped by SIGHUP (the terminal closed). */
  hungUp: 129,
  /** Stopped by Ctrl-C (SIGINT). */
  interrupted: 130,
  /** Stdout was closed before the end (`garuda run … | head -1`): as a process ended by SIGPIPE. */
  closed: 141,
  /** Stopped by SIGTERM. */
  terminated: 143,
} as const;

export const RUN_DESCRIPTION = "Run one task headless (scripts, CI) and exit; the exit code says how it ended.";

/**
 * The rest of `garuda run --help`: paragraphs, and a table whose rows start with two blanks;
 * the help wraps both to the terminal (usage.ts).
 */
export const RUN_HELP =
  `The answer goes to stdout, each of the model's responses once it is complete ` +
  `(one that breaks off and is asked again leaves nothing there); tool calls, ` +
  `thinking and notices go to stderr as they happen. --format json prints one ` +
  `JSON object per line instead, as it happens: start, each event of the turn, ` +
  `and a last "result" line.

Nothing can be approved during the run: a call that ` +
  `would ask is denied, unless an --allow rule covers it (rules as in the ` +
  `settings: 'bash(npm test *)', 'edit(src/**)', 'web_fetch(docs.rs)'). Commands ` +
  `run in the OS sandbox without asking, as in the chat. The team policy still ` +
  `wins.

Exit codes:
  0  done
  1  error (setup, no task, a /command that did ` +
  `not run, the model or provider failed)
  2  a limit ended the turn (steps, ` +
  `token budget, repeated calls, answer length, refusal), or a wrong command line ` +
  `(an unknown option, a value that is not allowed, a bad --allow rule)
  3  ` +
  `done, but a permission was denied (the run says what; allow it with --allow)
  ` +
  `129  hung up (SIGHUP)
  130  interrupted (Ctrl-C)
  141  stdout was closed ` +
  `before the end (as by SIGPIPE: garuda run … | head -1)
  143  terminated ` +
  `(SIGTERM)`;
