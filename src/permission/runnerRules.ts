// The tools that run a command in an environment they set up (`uv run pytest`, `pnpm exec tsc`,
// `nix-shell --run 'cmd'`): the command they run, for the rules to see as a wrapper's command.
// Apart from programRules.ts, which asks it first for any program name.
import type { ShapedWord } from "./commandNormalize.ts";
import { optionValue, type ResolveSink } from "./programArgs.ts";
import type { StdinSource } from "./shellParse.ts";

/**
 * Tools that run a command in an environment they set up, after a subcommand: `uv run pytest`,
 * `pnpm exec tsc`, `bundle exec rspec`. Their own options are not known one by one, so a word
 * right after an option may be that option's value: the command may then start one word later.
 */
const RUNNERS: Readonly<Record<string, readonly string[]>> = {
  npm: ["exec", "x"],
  pnpm: ["exec", "dlx"],
  yarn: ["exec", "dlx"],
  bun: ["x", "exec"],
  bundle: ["exec"],
  poetry: ["run"],
  pipenv: ["run"],
  uv: ["run"],
  pdm: ["run"],
  hatch: ["run"],
  rye: ["run"],
  pixi: ["run", "exec"],
  conda: ["run"],
  mamba: ["run"],
  mise: ["exec", "x"],
  asdf: ["exec"],
  rbenv: ["exec"],
  pyenv: ["exec"],
  nodenv: ["exec"],
  direnv: ["exec"],
};

/** Options of such tools that take a shell script: `npm exec -c 'cmd'`, `nix-shell --run 'cmd'`. */
const RUNNER_SCRIPTS: Readonly<Record<string, readonly [string | undefined, string]>> = {
  npm: ["c", "--call"],
  npx: ["c", "--call"],
  "nix-shell": [undefined, "--run"],
};

export function runner(sink: ResolveSink, name: string, args: ShapedWord[], stdin: StdinSource | undefined): boolean {
  const scriptOption = RUNNER_SCRIPTS[name];
  if (scriptOption) {
    const script =
      optionValue(args, scriptOption[0], scriptOption[1]) ??
      (name === "nix-shell" ? optionValue(args, undefined, "--command") : undefined);
    if (script) {
      sink.script(script.text, script.shape.known, `the command ${name} ${scriptOption[1]} runs`, stdin);
      return true;
    }
  }
  const subcommands = RUNNERS[name];
  const at = subcommands ? args.findIndex((word) => !word.text.startsWith("-")) : -1;
  if (!subcommands || at < 0 || !subcommands.includes(args[at]?.text ?? "")) return false;
  let rest = args.slice(at + 1);
  if (name === "direnv") rest = rest.slice(1); // direnv exec DIR cmd
  const start = rest.findIndex((word) => !word.shape.known || !word.text.startsWith("-"));
  if (start < 0) return true;
  const first = rest[start] as ShapedWord;
  if (first.shape.known && first.text === "--") {
    sink.wrapped(rest.slice(start + 1), stdin);
    return true;
  }
  sink.wrapped(rest.slice(start), stdin);
  if (start > 0 && rest[start + 1]) sink.wrapped(rest.slice(start + 1), stdin);
  return true;
}
