// What a simple command really runs, for denials: `sudo -u x env A=1 nice -n 5 /bin/rm -rf /`
// runs `rm -rf /`. Wrappers are stripped by their own option syntax, word by word, and a word
// whose value is computed when it runs stops the walk where it matters: `env $opts rm` may run
// anything, so the program is reported unknown rather than guessed. The commands hidden inside
// others (`sh -c "…"`, `eval`, `find -exec`, here-strings into a shell …) are commandResolve.ts;
// the wrappers and their option syntax are wrapperPrograms.ts.
import { parseShell, type WordShape } from "./shellParse.ts";
import { WRAPPERS, type WrapperSpec } from "./wrapperPrograms.ts";

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/** The last path segment: `/bin/rm` → `rm`. */
export function programName(word: string): string {
  const slash = word.lastIndexOf("/");
  return slash >= 0 && slash < word.length - 1 ? word.slice(slash + 1) : word;
}

const known = (text: string): WordShape => ({ known: true, single: true, head: text });

/** Shapes for words that are all known (test input, words split from a known string). */
export const knownShapes = (words: readonly string[]): WordShape[] => words.map(known);

/** A word and what is known of it. */
export interface ShapedWord {
  text: string;
  shape: WordShape;
}

/** A command after its wrappers. */
export interface Unwrapped {
  /** From the program on, as written. */
  words: string[];
  shapes: WordShape[];
  /** The program's name (its last path segment), when it is known. */
  program: string | undefined;
  /** `NAME=value` words a wrapper set (`env A=1`, `sudo A=1`). */
  sets: ShapedWord[];
  /** A wrapper's own script option (`flock f -c '…'`): run by a shell. */
  script?: ShapedWord;
  /** Wrappers stripped, outermost first. */
  wrappers: string[];
  /** xargs adds its input after the command's words: the last word stands for it. */
  appendedInput: boolean;
  /** Why the program cannot be known from the words. */
  unknown?: string;
}

/** The name a word runs as a program, when its last path segment is known. */
function nameOf(word: ShapedWord): string | undefined {
  if (word.shape.known) return programName(word.text);
  return word.shape.single ? word.shape.base : undefined;
}

function computed(word: ShapedWord, role: string): string {
  return `${role} \`${word.text}\` ${word.shape.why ?? "is computed when it runs"}`;
}

type Stripped =
  | { rest: ShapedWord[]; sets: ShapedWord[]; script?: ShapedWord; viaShell?: boolean }
  | { noRun: true }
  | { unknown: string };

interface OptionWord {
  /** `-n`, `--user`: the option that decides what the word means. */
  option: string;
  /** Its value: after `=` or the letters after a short option that takes one (`-n5`), else the next word. */
  value: ShapedWord | undefined;
  /** The value is the next word. */
  takesNext: boolean;
  noRun: boolean;
}

/**
 * Reads one option word the way getopt does: `--name=value`, `--name value`, and a cluster of
 * short flags where a letter that takes a value takes the rest of the word (`-iS'rm x'`, `-n5`)
 * or the next word.
 */
function readOption(spec: WrapperSpec, word: ShapedWord, next: ShapedWord | undefined): OptionWord {
  const text = word.text;
  const takes = (option: string) => spec.valued.has(option) || spec.script?.has(option) === true;
  if (text.startsWith("--")) {
    const equals = text.indexOf("=");
    const option = equals < 0 ? text : text.slice(0, equals);
    if (equals >= 0)
      return {
        option,
        value: { text: text.slice(equals + 1), shape: word.shape },
        takesNext: false,
        noRun: spec.noRun?.has(option) === true,
      };
    return {
      option,
      value: takes(option) ? next : undefined,
      takesNext: takes(option),
      noRun: spec.noRun?.has(option) === true,
    };
  }
  for (let k = 1; k < text.length; k += 1) {
    const option = `-${text[k]}`;
    if (spec.noRun?.has(option)) return { option, value: undefined, takesNext: false, noRun: true };
    if (!takes(option)) continue;
    const rest = text.slice(k + 1);
    if (rest.length > 0)
      return { option, value: { text: rest, shape: { ...word.shape, head: rest } }, takesNext: false, noRun: false };
    return { option, value: next, takesNext: true, noRun: false };
  }
  return { option: text, value: undefined, takesNext: false, noRun: spec.noRun?.has(text) === true };
}

/** The words of `env -S '…'`: split as the shell would (env -S follows the shell's quoting). */
function splitString(value: ShapedWord): ShapedWord[] | string {
  if (!value.shape.known) return computed(value, "the command env -S splits");
  const parsed = parseShell(value.text);
  const only = parsed.commands[0];
  if (!parsed.ok || parsed.commands.length !== 1 || !only)
    return `the command env -S splits (\`${value.text}\`) is not one plain command`;
  return only.words.map((text, i) => ({ text, shape: only.shapes[i] ?? known(text) }));
}

/** Strips one wrapper's own options, positionals and variables. */
function stripWrapper(name: string, spec: WrapperSpec, args: ShapedWord[]): Stripped {
  let i = 0;
  let positionals = spec.positionals ?? 0;
  const extra: ShapedWord[] = [];
  const sets: ShapedWord[] = [];
  let viaShell = false;
  while (i < args.length) {
    const word = args[i] as ShapedWord;
    if (word.shape.known && word.text === "--") {
      i += 1;
      break;
    }
    const isAssignment = (spec.assigns ? /^[^=-][^=]*=/ : ASSIGNMENT).test(word.shape.head);
    // A computed word before the program may be an option, a variable or the program itself: only
    // a variable whose name is fixed (`FOO="$x"`) is read as one. A valued option's value is below.
    if (!word.shape.known && !(word.shape.single && isAssignment))
      return { unknown: `${computed(word, `a word before ${name}'s command`)}` };
    if (word.text.startsWith("-") && word.text.length > 1) {
      const read = readOption(spec, word, args[i + 1]);
      if (read.noRun) return { noRun: true };
      if (
        spec.viaShell &&
        [...(word.text.startsWith("--") ? [word.text] : [...word.text.slice(1)].map((letter) => `-${letter}`))].some(
          (option) => spec.viaShell?.has(option),
        )
      )
        viaShell = true;
      if (spec.script?.has(read.option))
        return read.value ? { rest: [], sets, script: read.value } : { rest: [], sets };
      if (read.value && !read.value.shape.single)
        return { unknown: computed(read.value, `the value of ${name} ${read.option}`) };
      if (name === "env" && (read.option === "-S" || read.option === "--split-string")) {
        if (!read.value) return { unknown: "env -S has no command" };
        const words = splitString(read.value);
        if (typeof words === "string") return { unknown: words };
        extra.push(...words);
      }
      i += read.takesNext ? 2 : 1;
      continue;
    }
    if (isAssignment) {
      sets.push(word);
      i += 1;
      continue;
    }
    if (positionals > 0) {
      positionals -= 1;
      i += 1;
      continue;
    }
    break;
  }
  return { rest: [...extra, ...args.slice(i)], sets, viaShell };
}

/** The string xargs replaces with each input item (`-I {}`, `-i`, `-iX`, `--replace=X`, `-0I%`), if any. */
function xargsReplace(args: readonly ShapedWord[]): string | undefined {
  const spec = WRAPPERS.xargs as WrapperSpec;
  for (let i = 0; i < args.length; i += 1) {
    const text = args[i]?.text ?? "";
    if (text === "--" || !text.startsWith("-")) return undefined;
    if (text.startsWith("--")) {
      if (text === "--replace" || text.startsWith("--replace=")) return text.slice("--replace=".length) || "{}";
      if (spec.valued.has(text)) i += 1;
      continue;
    }
    // A cluster of short options: `-i` takes an optional attached string, a valued letter the rest or the next word.
    for (let k = 1; k < text.length; k += 1) {
      const letter = `-${text[k]}`;
      const rest = text.slice(k + 1);
      if (letter === "-i") return rest || "{}";
      if (!spec.valued.has(letter)) continue;
      if (letter === "-I") return rest || args[i + 1]?.text || "{}";
      if (rest.length === 0) i += 1;
      break;
    }
  }
  return undefined;
}

/** A word whose value xargs fills in from its input. */
const fromInput = (text: string): ShapedWord => ({
  text,
  shape: { known: false, single: true, head: "", why: "is filled in from xargs' input" },
});

/**
 * The command as a denial sees it: leading `VAR=value` words and wrappers (sudo, env, exec,
 * command, nohup, time, nice, timeout, xargs …) removed. A computed word where the program or a
 * wrapper's option stands makes the program unknown.
 */
export function unwrap(words: readonly string[], shapes: readonly WordShape[]): Unwrapped {
  let current: ShapedWord[] = words.map((text, i) => ({ text, shape: shapes[i] ?? known(text) }));
  const sets: ShapedWord[] = [];
  const wrappers: string[] = [];
  let appendedInput = false;
  const done = (extra: Partial<Unwrapped> = {}): Unwrapped => {
    const head = current[0];
    const program = head ? nameOf(head) : undefined;
    const result: Unwrapped = {
      words: current.map((w) => w.text),
      shapes: current.map((w) => w.shape),
      program,
      sets,
      wrappers,
      appendedInput,
      ...extra,
    };
    if (head && program === undefined && result.unknown === undefined)
      result.unknown = computed(head, "the program name");
    return result;
  };
  for (let round = 0; round < 16; round += 1) {
    while (current.length > 0 && ASSIGNMENT.test(current[0]?.shape.head ?? "")) {
      const assignment = current[0] as ShapedWord;
      if (!assignment.shape.single) return done({ unknown: computed(assignment, "the variable") });
      sets.push(assignment);
      current = current.slice(1);
    }
    const head = current[0];
    if (!head) return done();
    const name = nameOf(head);
    const spec = name === undefined ? undefined : WRAPPERS[name];
    if (!spec || name === undefined) break;
    const args = current.slice(1);
    const stripped = stripWrapper(name, spec, args);
    if ("noRun" in stripped) break;
    if ("unknown" in stripped) return done({ unknown: stripped.unknown });
    sets.push(...stripped.sets);
    if (stripped.script) {
      wrappers.push(name);
      current = [];
      return done({ script: stripped.script });
    }
    if (stripped.rest.length === 0) break;
    if (stripped.viaShell) {
      // The shell runs the words joined: a script like any other.
      wrappers.push(name);
      const computedWord = stripped.rest.find((word) => !word.shape.known);
      const text = stripped.rest.map((word) => word.text).join(" ");
      current = [];
      return done({ script: { text, shape: computedWord ? computedWord.shape : known(text) } });
    }
    wrappers.push(name);
    current = stripped.rest;
    if (name === "xargs") {
      // Its input becomes arguments: in place of the replace string, or after the command's own words.
      const replace = xargsReplace(args);
      appendedInput = replace === undefined;
      current =
        replace === undefined
          ? [...current, fromInput("(xargs' input)")]
          : current.map((word) => (word.text.includes(replace) ? fromInput(word.text) : word));
    }
  }
  return done();
}

/** The words of a command as a denial matches them: wrappers stripped, the program by its base name. */
export function normalizeForDeny(words: readonly string[]): string[] {
  const unwrapped = unwrap(words, knownShapes(words));
  const out = [...unwrapped.words];
  if (out.length > 0) out[0] = unwrapped.program ?? out[0] ?? "";
  return out;
}
