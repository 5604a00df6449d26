// What every program rule (programRules.ts, gitRules.ts, runnerRules.ts) shares: the sink it
// reports to, and how it reads the words of a program's arguments (an option's value, the first
// computed word, a word as a reason quotes it). Apart so each rule's file holds one program's rules.
import type { ShapedWord } from "./commandNormalize.ts";
import type { StdinSource } from "./shellParse.ts";

/** What the resolver offers a program rule. */
export interface ResolveSink {
  fail(why: string): void;
  /** A script it runs (`known`: fixed as written). */
  script(text: string, known: boolean, what: string, stdin?: StdinSource): void;
  /** A command it runs given as words (an allow must cover it too). */
  words(words: ShapedWord[], stdin?: StdinSource): void;
  /** A command it runs as a wrapper does (`uv run pytest`): for denials only, as sudo's command is. */
  wrapped(words: ShapedWord[], stdin?: StdinSource): unknown;
  /** It reads its commands from standard input. */
  stdinScript(stdin: StdinSource | undefined, who: string): void;
  /** The same command in another form a denial should see (`git -C x push` as `git push`). */
  also(words: ShapedWord[]): void;
}

export const quoted = (word: ShapedWord) => `\`${word.text}\``;
export const whyNot = (word: ShapedWord) => word.shape.why ?? "is computed when it runs";
export const firstComputed = (words: readonly ShapedWord[]) => words.find((word) => !word.shape.known);

/** The value of an option given as `-c X`, `-qc X`, `--command X` or `--command=X`. */
export function optionValue(
  args: readonly ShapedWord[],
  letter: string | undefined,
  long: string | undefined,
): ShapedWord | undefined {
  for (let i = 0; i < args.length; i += 1) {
    const word = args[i] as ShapedWord;
    const text = word.text;
    if (text === "--") return undefined;
    if (long !== undefined && text === long) return args[i + 1];
    if (long !== undefined && text.startsWith(`${long}=`))
      return { text: text.slice(long.length + 1), shape: word.shape };
    if (letter !== undefined && /^-[A-Za-z]+$/.test(text) && text.includes(letter)) {
      const rest = text.slice(text.indexOf(letter) + 1);
      return rest.length > 0 ? { text: rest, shape: word.shape } : args[i + 1];
    }
  }
  return undefined;
}
