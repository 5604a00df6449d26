// Variables and settings whose value is code: a shell runs `BASH_ENV='$(rm x)' bash -c ls`'s
// `$(rm x)` before `ls`, git runs `GIT_PAGER='rm x'` and `git -c core.pager='rm x' log` through
// sh, bash imports `BASH_FUNC_ls%%` as a function. A denial must look into their values (a known
// value is read as the script it is) and give up on a computed one, as it does for `sh -c "$x"`.

/** Expanded (`$(…)` run) each time the shell uses them: their value must have no expansion at all. */
const EXPANDED_WHEN_USED: ReadonlySet<string> = new Set(["BASH_ENV", "ENV", "PS0", "PS1", "PS2", "PS3", "PS4"]);

/** Run as a shell command (or a program with arguments) by the shell, git, less, sudo, ssh. */
const RUN_AS_COMMAND: ReadonlySet<string> = new Set([
  "PROMPT_COMMAND",
  "PAGER",
  "GIT_PAGER",
  "MANPAGER",
  "SYSTEMD_PAGER",
  "EDITOR",
  "VISUAL",
  "GIT_EDITOR",
  "GIT_SEQUENCE_EDITOR",
  "GIT_SSH",
  "GIT_SSH_COMMAND",
  "GIT_EXTERNAL_DIFF",
  "GIT_ASKPASS",
  "SSH_ASKPASS",
  "SUDO_ASKPASS",
  "GIT_PROXY_COMMAND",
  "LESSOPEN",
  "LESSCLOSE",
]);

export type VariableUse = "expanded" | "command" | "function" | undefined;

/** How a variable's value is used as code, if it is. */
export function variableUse(name: string): VariableUse {
  if (name.startsWith("BASH_FUNC_")) return "function";
  if (EXPANDED_WHEN_USED.has(name)) return "expanded";
  if (RUN_AS_COMMAND.has(name) || /^GIT_CONFIG_VALUE_\d+$/.test(name)) return "command";
  return undefined;
}

/** Every name variableUse knows, for checks of `read NAME` and `printf -v NAME`. */
export const isCodeVariable = (name: string) => variableUse(name) !== undefined;

/** The script a command variable's value stands for: `LESSOPEN='|cmd %s'` runs `cmd %s`. */
export function commandValue(name: string, value: string): string {
  return name === "LESSOPEN" || name === "LESSCLOSE" ? value.replace(/^\|{1,2}-?/, "") : value.replace(/^!/, "");
}

/** git settings whose value runs as a command (through sh when it starts with `!` or always). */
const GIT_CODE_KEYS: readonly RegExp[] = [
  /^alias\./,
  /^core\.(pager|editor|sshcommand|fsmonitor|askpass|gitproxy)$/,
  /^diff\.external$/,
  /^(diff|merge)\.[^.]+\.(command|textconv|driver)$/,
  /^filter\.[^.]+\.(clean|smudge|process)$/,
  /^pager\./,
  /^sequence\.editor$/,
  /^credential(\..+)?\.helper$/,
  /^gpg(\.[^.]+)?\.program$/,
  /^interactive\.difffilter$/,
  /^uploadpack\.packobjectshook$/,
  /^remote\.[^.]+\.(uploadpack|receivepack)$/,
  /^browser\.[^.]+\.cmd$/,
];

/** Whether a git config key (any case) holds a command. */
export function isGitCodeKey(key: string): boolean {
  const lower = key.toLowerCase();
  return GIT_CODE_KEYS.some((pattern) => pattern.test(lower));
}

/**
 * The script a git code setting runs: `alias.x='!rm y'` and other values run through sh; an alias
 * without `!` runs git with its words (`alias.p='push --force'` is `git push --force`).
 */
export function gitCodeScript(key: string, value: string): string {
  const lower = key.toLowerCase();
  if (lower.startsWith("alias.") && !value.startsWith("!")) return `git ${value}`;
  return value.replace(/^!/, "");
}
