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
  return prev === "*" || prev === "&" || prev === "}" || prev === ":" || prev === "~" || prev === ")" || prev === ">";
}

/** The text with comments and string and character literals replaced by spaces (newlines kept). */
export function blankCommentsAndStrings(text: string): string {
  const out = text.split("");
  let i = 0;
  const blank = (from: number, to: number) => {
    for (let k = from; k < to; k++) if (out[k] !== "\n") out[k] = " ";
  };
  while (i < text.length) {
    const c = text[i];
    if (c === "/" && text[i + 1] === "/") {
      let end = text.indexOf("\n", i);
      if (end === -1) end = text.length;
      blank(i, end);
      i = end;
    } else if (c === "/" && text[i + 1] === "*") {
      let end = text.indexOf("*/", i + 2);
      end = end === -1 ? text.length : end + 2;
      blank(i, end);
      i = end;
    } else if (c === '"' || c === "'") {
      let end = i + 1;
      while (end < text.length && text[end] !== c && text[end] !== "\n") end += text[end] === "\\" ? 2 : 1;
      blank(i, Math.min(end + 1, text.length));
      i = end + 1;
    } else {
      i++;
    }
  }
  return out.join("");
}

export function mayDefine(source: string, word: string, cpp: boolean): boolean {
  const text = blankCommentsAndStrings(source);
  for (let at = text.indexOf(word); at !== -1; at = text.indexOf(word, at + word.length)) {
    // Whole words only: `kmalloc` in `kmalloc_array` is another name.
    if (at > 0 && IDENT.test(text[at - 1] as string)) continue;
    const end = at + word.length;
    if (end < text.length && IDENT.test(text[end] as string)) continue;
    const lineStart = text.lastIndexOf("\n", at - 1) + 1;
    let lineEnd = text.indexOf("\n", end);
    if (lineEnd === -1) lineEnd = text.length;
    if (mayDefineAt(text.slice(lineStart, lineEnd), at - lineStart, word, cpp)) return true;
  }
  return false;
}
