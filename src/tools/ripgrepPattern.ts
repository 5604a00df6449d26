// The model's JavaScript regular expression as a ripgrep (Rust regex) pattern. Most patterns
// translate exactly: rg then matches the very lines JavaScript would, and grep can take rg's
// counts as they are. Where the two dialects differ the translation spells out JavaScript's
// meaning: `\d`, `\w`, `\b` are ASCII in JavaScript (Unicode in Rust); `.`, a negated class and
// `\s` never match a line's end (the search splits at \r as at \n: a line holds neither); a
// `{` that starts no repetition is a plain character; ignoring case folds ASCII letters only
// (Rust's Unicode folding also makes k match the Kelvin sign). What translates only to a pattern
// that matches at least JavaScript's lines (ignoring case with classes, escapes or non-ASCII
// letters; `\r`) is marked inexact: each line rg reports is tested again with the JavaScript
// pattern (ripgrepGrep.ts). What has no such spelling (lookaround, back-references, `\n`,
// `[^]`, unknown escapes) gives undefined: the tools' own search answers those.
//
// Known differences, where text holds them: `.` stands for one character, where JavaScript's
// stands for one UTF-16 unit, so `..` does not match one character beyond U+FFFF as it does in
// JavaScript.

export interface RustPattern {
  pattern: string;
  /** rg matches exactly JavaScript's lines; else it matches at least those (test each again). */
  exact: boolean;
  /** Pass rg --ignore-case (only for an inexact pattern: exact ones spell the case out). */
  ignoreCase: boolean;
}

const HEX = (code: number) => `\\x{${code.toString(16)}}`;
/** JavaScript's \s but the line ends, which its lines never hold. */
const JS_SPACE =
  "\\t\\x{b}\\x{c} \\x{a0}\\x{1680}\\x{2000}-\\x{200a}\\x{2028}\\x{2029}\\x{202f}\\x{205f}\\x{3000}\\x{feff}";
/** The line ends a negated set leaves out as well (JavaScript's lines hold neither). */
const LINE_ENDS = "\\x{a}\\x{d}";
const CLASS_ESCAPES: Record<string, string> = {
  d: "0-9",
  w: "0-9A-Za-z_",
  s: JS_SPACE,
};
const CONTROL: Record<string, number> = { t: 9, v: 11, f: 12, r: 13 };

/** A class escape (\d \w \s and their negations) as Rust: a class outside one, a nested class inside. */
function classEscape(letter: string, inClass: boolean): string | undefined {
  const set = CLASS_ESCAPES[letter.toLowerCase()];
  if (set === undefined) return undefined;
  const negated = letter !== letter.toLowerCase();
  if (inClass && !negated) return set;
  return negated ? `[^${set}${LINE_ENDS}]` : `[${set}]`;
}

/**
 * One escape (`\` then `next`) as Rust, or undefined when it has none; `length`: characters used
 * after the backslash; `inexact`: Rust may match lines JavaScript does not.
 */
function escape(
  pattern: string,
  at: number,
  inClass: boolean,
): { text: string; length: number; inexact?: boolean } | undefined {
  const next = pattern[at] as string | undefined;
  if (next === undefined) return undefined;
  const cls = classEscape(next, inClass);
  if (cls !== undefined) return { text: cls, length: 1 };
  if (!inClass && (next === "b" || next === "B")) return { text: `(?-u:\\${next})`, length: 1 };
  // A line never holds a \r in JavaScript's search; rg may see one before a \n.
  if (CONTROL[next] !== undefined) return { text: HEX(CONTROL[next] as number), length: 1, inexact: next === "r" };
  // A character by its code: exact with case, and its case is folded by rg's -i only.
  if (next === "x" && /^[0-9a-fA-F]{2}$/.test(pattern.slice(at + 1, at + 3)))
    return { text: HEX(Number.parseInt(pattern.slice(at + 1, at + 3), 16)), length: 3, inexact: true };
  if (next === "u" && /^[0-9a-fA-F]{4}$/.test(pattern.slice(at + 1, at + 5))) {
    const code = Number.parseInt(pattern.slice(at + 1, at + 5), 16);
    // A surrogate half stands for part of a character rg never sees alone.
    return code >= 0xd800 && code <= 0xdfff ? undefined : { text: HEX(code), length: 5, inexact: true };
  }
  // Escaped punctuation is that character.
  if (/[^\p{L}\p{N}\s]/u.test(next) && next.charCodeAt(0) < 0x80) return { text: HEX(next.charCodeAt(0)), length: 1 };
  return undefined;
}

const ASCII_LETTER = /^[A-Za-z]$/;

/** The Rust pattern for a JavaScript one that compiled (compilePattern), or undefined. */
export function rustPattern(pattern: string, ignoreCase: boolean): RustPattern | undefined {
  // A character beyond U+FFFF is two units to JavaScript (`.` matches each), one to Rust.
  if (/[\uD800-\uDFFF]/.test(pattern)) return undefined;
  // Ignoring case, exactly: each ASCII letter spelt as both its cases. Classes and non-ASCII
  // letters are left to rg's --ignore-case, and the lines it reports tested again.
  const spellCase = ignoreCase && !/[[\\]|[^\x00-\x7f]/.test(pattern.replace(/\\[dDwWsSbB.*+?()|{}^$/-]/g, ""));
  let exact = !ignoreCase || spellCase;
  let out = "";
  let inClass = false;
  let classStart = -1;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string;
    if (c === "\\") {
      const escaped = escape(pattern, i + 1, inClass);
      if (!escaped) return undefined;
      if (escaped.inexact) exact = false;
      out += escaped.text;
      i += escaped.length;
      continue;
    }
    if (inClass) {
      if (c === "]") {
        if (i === classStart) return undefined; // [] or [^]: JavaScript's never / anything
        inClass = false;
        out += "]";
      } else if (c === "[" || c === "&" || c === "~" || (c === "-" && pattern[i + 1] === "-")) {
        // Rust reads these as a nested class or a set operation.
        out += HEX(c.charCodeAt(0));
      } else {
        out += c;
      }
      continue;
    }
    if (c === "[") {
      inClass = true;
      out += "[";
      if (pattern[i + 1] === "^") {
        out += `^${LINE_ENDS}`;
        i++;
      }
      classStart = i + 1;
      continue;
    }
    if (c === "(") {
      if (pattern[i + 1] === "?" && pattern[i + 2] !== ":") return undefined; // lookaround, named group
      out += "(";
      continue;
    }
    if (c === ".") {
      out += `[^${LINE_ENDS}\\x{2028}\\x{2029}]`;
      continue;
    }
    if (c === "{") {
      const repeat = /^\{\d+(,\d*)?\}/.exec(pattern.slice(i));
      if (repeat) {
        out += repeat[0];
        i += repeat[0].length - 1;
      } else out += "\\{";
      continue;
    }
    if (c === "}") {
      out += "\\}";
      continue;
    }
    if (c === "\n") return undefined;
    if (c === "#" || c === " ") {
      out += HEX(c.charCodeAt(0));
      continue;
    }
    out += spellCase && ASCII_LETTER.test(c) ? `[${c.toLowerCase()}${c.toUpperCase()}]` : c;
  }
  if (inClass) return undefined;
  return { pattern: out, exact, ignoreCase: ignoreCase && !spellCase };
}
