// git as a program that runs commands given as its data: the settings that hold a command
// (`-c core.pager=…`, `--config-env`), the subcommands that run shell commands (`rebase -x`,
// `submodule foreach`, `bisect run`, `--upload-pack` …), and `git -C x push` seen as `git push`.
// Apart from programRules.ts, which dispatches to it, as git has the most rules of any program.
import { gitCodeScript, isGitCodeKey } from "./codeVariables.ts";
import type { ShapedWord } from "./commandNormalize.ts";
import { firstComputed, optionValue, quoted, type ResolveSink, whyNot } from "./programArgs.ts";
import type { StdinSource } from "./shellParse.ts";

/** git options that take a value before the subcommand. */
const GIT_VALUED = new Set([
  "-C",
  "--git-dir",
  "--work-tree",
  "--namespace",
  "--exec-path",
  "--super-prefix",
  "--list-cmds",
  "--attr-source",
]);

/** Subcommand options whose value is a shell command (`git rebase -x 'cmd'`). */
const GIT_SUBCOMMAND_SCRIPTS: Readonly<Record<string, readonly string[]>> = {
  rebase: ["-x", "--exec"],
  difftool: ["-x", "--extcmd"],
  "filter-branch": [
    "--env-filter",
    "--tree-filter",
    "--index-filter",
    "--parent-filter",
    "--msg-filter",
    "--commit-filter",
    "--tag-name-filter",
  ],
  fetch: ["--upload-pack"],
  pull: ["--upload-pack"],
  clone: ["-u", "--upload-pack"],
  "ls-remote": ["--upload-pack"],
  push: ["--receive-pack", "--exec"],
  "send-pack": ["--receive-pack", "--exec"],
  "fetch-pack": ["--upload-pack", "--exec"],
  archive: ["--exec"],
};

function gitSetting(word: ShapedWord): { key: string; value: string; keyKnown: boolean } {
  const equals = word.text.indexOf("=");
  const key = equals < 0 ? word.text : word.text.slice(0, equals);
  return {
    key,
    value: equals < 0 ? "true" : word.text.slice(equals + 1),
    keyKnown: word.shape.head.length > key.length || word.shape.known,
  };
}

/** git's own options before the subcommand; returns where the subcommand is. */
function gitOptions(sink: ResolveSink, args: ShapedWord[]): number | undefined {
  for (let i = 0; i < args.length; i += 1) {
    const word = args[i] as ShapedWord;
    if (!word.shape.known) {
      sink.fail(`${quoted(word)} (an argument of git before its subcommand) ${whyNot(word)}, so it may set a command`);
      return undefined;
    }
    const text = word.text;
    if (text === "-c" || text === "--config-env" || text.startsWith("--config-env=")) {
      const inline = text.startsWith("--config-env=");
      const setting = inline ? { ...word, text: text.slice("--config-env=".length) } : args[i + 1];
      if (!inline) i += 1;
      if (!setting) return undefined;
      const { key, value, keyKnown } = gitSetting(setting);
      if (!keyKnown) {
        sink.fail(`${quoted(setting)} (a git setting) ${whyNot(setting)}`);
        return undefined;
      }
      if (!isGitCodeKey(key)) continue;
      if (text !== "-c") sink.fail(`git takes its ${key} setting, a command, from the environment ($${value})`);
      else sink.script(gitCodeScript(key, value), setting.shape.known, `the command in git's ${key} setting`);
      continue;
    }
    if (GIT_VALUED.has(text)) {
      i += 1;
      continue;
    }
    if (!text.startsWith("-")) return i;
  }
  return undefined;
}

export function git(sink: ResolveSink, args: ShapedWord[], stdin: StdinSource | undefined): void {
  const at = gitOptions(sink, args);
  if (at === undefined) return;
  // `git -C dir -c k=v push` is `git push` to a denial.
  if (at > 0) sink.also([{ text: "git", shape: { known: true, single: true, head: "git" } }, ...args.slice(at)]);
  const sub = args[at]?.text ?? "";
  const rest = args.slice(at + 1);
  if (sub === "submodule" && rest[0]?.text === "foreach") {
    const words = rest.slice(1).filter((word) => !["--recursive", "-q", "--quiet"].includes(word.text));
    const computed = firstComputed(words);
    if (computed) return sink.fail(`git submodule foreach runs ${quoted(computed)}, which ${whyNot(computed)}`);
    return sink.script(words.map((word) => word.text).join(" "), true, "the command git submodule foreach runs");
  }
  if (sub === "bisect" && rest[0]?.text === "run") return sink.words(rest.slice(1), stdin);
  const options = GIT_SUBCOMMAND_SCRIPTS[sub];
  if (!options) return;
  const computed = firstComputed(rest);
  if (computed && (computed.shape.head.startsWith("-") || computed.shape.head === "")) {
    return sink.fail(
      `${quoted(computed)} (an argument of git ${sub}) ${whyNot(computed)}, so it may give git a command to run`,
    );
  }
  for (const option of options) {
    const value = option.startsWith("--")
      ? optionValue(rest, undefined, option)
      : optionValue(rest, option.slice(1), undefined);
    if (value) sink.script(value.text, value.shape.known, `the command git ${sub} ${option} runs`);
  }
}
