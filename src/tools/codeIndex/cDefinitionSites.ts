// Whether a C or C++ file could define a name, from its text alone: parsing is the costly part of
// find_definition (~10 ms for a 20 KB C file), and a name such as `kmalloc` is called in
// thousands of files and defined in one. A file is parsed when any mention of the name could be a
// definition; mentions that are plainly uses are: after `=`, `(`, `,`, an operator or `return`
// (`buf = kmalloc(…)`, `f(kmalloc(…))`), a statement that starts with a call (`\tkfree(p);`, in
// C only: in C++ that is also how a class declares its constructor), a member (`dev->kmalloc`,
// `s.kmalloc`), and `struct name` not followed by its body (`struct kmem_cache *s`). Anything
// else — after a type, `*`, `}`, `#define`, `::`, `~`, or at the start of a line — is parsed.
// Mentions in comments and string literals do not count. When in doubt it answers true: a wrong
// "no" would hide a definition.

/** C and C++ files by extension; a `.h` file is C or C++ ("header"). */
export const C_FAMILY_EXTENSIONS = {
  c: "c",
  h: "header",
  cc: "cpp",
  cpp: "cpp",
  cxx: "cpp",
  "c++": "cpp",
  hh: "cpp",
  hpp: "cpp",
  hxx: "cpp",
  "h++": "cpp",
} as const;

export type CFamily = (typeof C_FAMILY_EXTENSIONS)[keyof typeof C_FAMILY_EXTENSIONS];

export function cFamilyOf(path: string): CFamily | undefined {
  const dot = path.lastIndexOf(".");
  if (dot < 0) return undefined;
  return (C_FAMILY_EXTENSIONS as Record<string, CFamily>)[path.slice(dot + 1).toLowerCase()];
}

/** The characters of an identifier (C, C++ and the `$` some compilers allow). */
const IDENT = /[\p{L}\p{N}_$]/u;

/** Keywords after which a name is used, not declared. */
const USE_KEYWORDS = new Set(["return", "case", "sizeof", "goto", "else", "do", "typeof", "alignof", "new", "delete"]);
/** Keywords that name a type whose body may follow. */
const TAG_KEYWORDS = new Set(["struct", "union", "enum", "class"]);

function previousWord(line: string, end: number): string {
  let start = end;
  while (start > 0 && IDENT.test(line[start - 1] as string)) start--;
  return line.slice(start, end);
}

/** Whether this mention, at `at` in `line`, could be where the name is defined. */
function mayDefineAt(line: string, at: number, word: string, cpp: boolean): boolean {
  let before = at;
  while (before > 0 && (line[before - 1] === " " || line[before - 1] === "\t")) before--;
  let after = at + word.length;
  while (after < line.length && (line[after] === " " || line[after] === "\t")) after++;
  const next = line[after];
  if (before === 0) {
    // At the line's start: a definition whose type is on the line above, or (indented) a
    // statement. An indented call is a use in C; an enum constant or a C++ member is not a call.
    return at === 0 || next !== "(" || cpp;
  }
  const prev = line[before - 1] as string;
  if (IDENT.test(prev)) {
    const keyword = previousWord(line, before);
    if (USE_KEYWORDS.has(keyword)) return false;
    // `struct name {`, `struct name` at the line's end (body below) or `class name : base`.
    if (TAG_KEYWORDS.has(keyword)) return next === undefined || next === "{" || next === ":" || next === "/";
    return true;
  }
  if (prev === ">" && line[before - 2] === "-") return false;
  if (prev === "." && !cpp) return false;
  return (
    prev === "*" ||
    prev === "&" ||
    prev === "}" ||
    prev === ":" ||
    prev === "~" ||
    prev === ")" ||
    prev === ">" ||
    prev === "/"
  );
}

/** The text with comments and string and character literals replaced by spaces (newlines kept). */
export function blankCommentsAndStrings(text: string): string {
  const parts: string[] = [];
  const blank = (from: number, to: number) => parts.push(text.slice(from, to).replace(/[^\n]/g, " "));
  let copied = 0;
  // The next place a comment or literal may start; everything before it is code, copied as is.
  const opener = /\/[/*]|["']/g;
  for (let found = opener.exec(text); found; found = opener.exec(text)) {
    const i = found.index;
    parts.push(text.slice(copied, i));
    let end: number;
    if (found[0] === "//") {
      end = text.indexOf("\n", i);
      if (end === -1) end = text.length;
    } else if (found[0] === "/*") {
      end = text.indexOf("*/", i + 2);
      end = end === -1 ? text.length : end + 2;
    } else {
      const quote = found[0];
      end = i + 1;
      while (end < text.length && text[end] !== quote && text[end] !== "\n") end += text[end] === "\\" ? 2 : 1;
      end = Math.min(end + 1, text.length);
    }
    blank(i, end);
    copied = end;
    opener.lastIndex = end;
  }
  parts.push(text.slice(copied));
  return parts.join("");
}

/** The mentions of `word` as a whole word that could be a definition, in `text` as it is. */
function* definitionLike(text: string, word: string, cpp: boolean): Generator<number> {
  for (let at = text.indexOf(word); at !== -1; at = text.indexOf(word, at + word.length)) {
    // Whole words only: `kmalloc` in `kmalloc_array` is another name.
    if (at > 0 && IDENT.test(text[at - 1] as string)) continue;
    const end = at + word.length;
    if (end < text.length && IDENT.test(text[end] as string)) continue;
    const lineStart = text.lastIndexOf("\n", at - 1) + 1;
    let lineEnd = text.indexOf("\n", end);
    if (lineEnd === -1) lineEnd = text.length;
    if (mayDefineAt(text.slice(lineStart, lineEnd), at - lineStart, word, cpp)) yield at;
  }
}

export function mayDefine(source: string, word: string, cpp: boolean): boolean {
  // Most files only use the name: the mentions are checked on the text as it is, and comments
  // and strings blanked (which costs a pass over the file) only once one looks like a definition.
  // (A comment just before the name, `int /* c */ name(…)`, counts as may-define in the first pass.)
  if (definitionLike(source, word, cpp).next().done) return false;
  return !definitionLike(blankCommentsAndStrings(source), word, cpp).next().done;
}

/**
 * Whether one line of a file of that kind, as it is, has a mention that could be a definition:
 * mayDefineIn's first pass, line by line (a .h file read as C++, which lets more through). A file
 * none of whose lines passes is one mayDefineIn says no to; ripgrepMentions.ts sorts rg's lines
 * with it, so the worker reads only files that may define the name.
 */
export function mayDefineOnLine(family: CFamily, line: string, word: string): boolean {
  return !definitionLike(line, word, family !== "c").next().done;
}

/** mayDefine for a file of that kind: a .h file is read as C++ when it has words only C++ has. */
export function mayDefineIn(family: CFamily, text: string, word: string): boolean {
  const cpp = family === "cpp" || (family === "header" && /\b(class|namespace|template)\b/.test(text));
  return mayDefine(text, word, cpp);
}
