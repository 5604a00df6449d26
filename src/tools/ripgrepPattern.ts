// The model's JavaScript regular expression as a ripgrep (Rust regex) pattern that matches at
// least the lines the JavaScript one matches; every line rg reports is then tested again with the
// JavaScript pattern itself (ripgrepGrep.ts), so the answer is exactly JavaScript's. Where the two
// dialects differ the translation spells out JavaScript's meaning: `\d`, `\w`, `\b` are ASCII in
// JavaScript (Unicode in Rust), `.` does not match \r, U+2028 or U+2029, a `{` that starts no
// repetition is a plain character. What has no such spelling (lookaround, back-references,
// `\n`, `[^]`, unknown escapes) gives undefined: the tools' own search answers those.

const HEX = (code: number) => `\\x{${code.toString(16)}}`;
/** JavaScript's \s: its WhiteSpace and LineTerminator characters. */
const JS_SPACE =
  "\\t\\x{a}\\x{b}\\x{c}\\x{d} \\x{a0}\\x{1680}\\x{2000}-\\x{200a}\\x{2028}\\x{2029}\\x{202f}\\x{205f}\\x{3000}\\x{feff}";
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
  return `[${negated ? "^" : ""}${set}]`;
}

/** One escape (`\` then `next`) as Rust, or undefined when it has none; `length`: characters used after the backslash. */
function escape(pattern: string, at: number, inClass: boolean): { text: string; length: number } | undefined {
  const next = pattern[at] as string | undefined;
  if (next === undefined) return undefined;
  const cls = classEscape(next, inClass);
  if (cls !== undefined) return { text: cls, length: 1 };
  if (!inClass && (next === "b" || next === "B")) return { text: `(?-u:\\${next})`, length: 1 };
  if (CONTROL[next] !== undefined) return { text: HEX(CONTROL[next] as number), length: 1 };
  if (next === "x" && /^[0-9a-fA-F]{2}$/.test(pattern.slice(at + 1, at + 3)))
    return { text: HEX(Number.parseInt(pattern.slice(at + 1, at + 3), 16)), length: 3 };
  if (next === "u" && /^[0-9a-fA-F]{4}$/.test(pattern.slice(at + 1, at + 5))) {
    const code = Number.parseInt(pattern.slice(at + 1, at + 5), 16);
    // A surrogate half stands for part of a character rg never sees alone.
    return code >= 0xd800 && code <= 0xdfff ? undefined : { text: HEX(code), length: 5 };
  }
  // Escaped punctuation is that character.
  if (/[^\p{L}\p{N}\s]/u.test(next) && next.charCodeAt(0) < 0x80) return { text: HEX(next.charCodeAt(0)), length: 1 };
  return undefined;
}

/** The Rust pattern for a JavaScript one that compiled (compilePattern), or undefined. */
export function rustPattern(pattern: string): string | undefined {
  // A character beyond U+FFFF is two units to JavaScript (`.` matches each), one to Rust.
  if (/[\uD800-\uDFFF]/.test(pattern)) return undefined;
  let out = "";
  let inClass = false;
  let classStart = -1;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string;
    if (c === "\\") {
      const escaped = escape(pattern, i + 1, inClass);
      if (!escaped) return undefined;
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
        out += "^";
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
      out += "[^\\x{a}\\x{d}\\x{2028}\\x{2029}]";
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
    if (c === "#" || c === " " || c === "\n") {
      if (c === "\n") return undefined;
      out += HEX(c.charCodeAt(0));
      continue;
    }
    out += c;
  }
  return inClass ? undefined : out;
}
