// Arguments of `/name args` in a command's or skill's text: `$ARGUMENTS` is the whole text,
// `$ARGUMENTS[N]` one argument (0-based), and `$N` one argument — 1-based in custom commands
// ($1 … $9), 0-based in skills ($0 …), as in the formats these files come from. Quotes group
// words. A text with no placeholder gets the arguments appended.

/** The arguments as words; "double" or 'single' quotes group words into one. */
export function splitArguments(args: string): string[] {
  const words: string[] = [];
  const pattern = /"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g;
  for (const match of args.matchAll(pattern)) {
    if (match[1] !== undefined) words.push(match[1].replace(/\\(.)/g, "$1"));
    else words.push(match[2] ?? match[3] ?? "");
  }
  return words;
}

const PLACEHOLDER = /\$ARGUMENTS\[(\d+)\]|\$ARGUMENTS|\$(\d)/g;

/** Fills the placeholders of `text` from `args`; `positional` says whether `$1` or `$0` is the first. */
export function expandArguments(text: string, args: string, positional: "one-based" | "zero-based"): string {
  const words = splitArguments(args);
  let used = false;
  const expanded = text.replace(PLACEHOLDER, (_match, indexed: string | undefined, digit: string | undefined) => {
    used = true;
    if (indexed !== undefined) return words[Number(indexed)] ?? "";
    if (digit !== undefined) {
      const index = positional === "one-based" ? Number(digit) - 1 : Number(digit);
      return index >= 0 ? (words[index] ?? "") : "";
    }
    return args;
  });
  if (used || args.trim() === "") return expanded;
  return `${expanded}\n\nArguments: ${args}`;
}
