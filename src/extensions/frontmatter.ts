// The frontmatter of custom commands, skills and agents: a `---` block at the top of a Markdown
// file with simple `key: value` lines (the common subset of YAML these files use): quoted or
// bare text, and block lists of `- item` lines under a key. Values stay text (an argument hint
// like `[focus]` is text); listField reads `[a, b]` and `a, b` as lists. Nothing is executed.

export type FrontmatterValue = string | string[];

export interface Markdown {
  /** Keys in lower case. */
  fields: Record<string, FrontmatterValue>;
  body: string;
}

const KEY_LINE = /^([A-Za-z][A-Za-z0-9_-]*)\s*:\s*(.*)$/;
const LIST_ITEM = /^\s*-\s+(.*)$/;

function unquote(text: string): string {
  const value = text.trim();
  if (
    value.length >= 2 &&
    ((value.startsWith('"') && value.endsWith('"')) || (value.startsWith("'") && value.endsWith("'")))
  ) {
    const inner = value.slice(1, -1);
    return value.startsWith('"')
      ? inner.replace(/\\"/g, '"').replace(/\\n/g, "\n").replace(/\\\\/g, "\\")
      : inner.replace(/''/g, "'");
  }
  return value;
}

/** Splits a Markdown file into its frontmatter fields and body. No frontmatter: all body. */
export function parseMarkdown(text: string): Markdown {
  const normalized = text.replace(/^\uFEFF/, "").replace(/\r\n/g, "\n");
  const lines = normalized.split("\n");
  if (lines[0]?.trim() !== "---") return { fields: {}, body: normalized.trim() };
  const end = lines.findIndex((line, index) => index > 0 && line.trim() === "---");
  if (end < 0) return { fields: {}, body: normalized.trim() };

  const fields: Record<string, FrontmatterValue> = {};
  let listKey: string | undefined;
  for (const line of lines.slice(1, end)) {
    if (line.trim() === "" || line.trimStart().startsWith("#")) continue;
    const item = LIST_ITEM.exec(line);
    if (item && listKey !== undefined) {
      const current = fields[listKey];
      fields[listKey] = [...(Array.isArray(current) ? current : []), unquote(item[1] ?? "")];
      continue;
    }
    const match = KEY_LINE.exec(line);
    listKey = undefined;
    if (!match) continue;
    const key = (match[1] as string).toLowerCase();
    const raw = (match[2] ?? "").trim();
    if (raw === "") {
      listKey = key;
      fields[key] = [];
    } else {
      fields[key] = unquote(raw);
    }
  }
  return {
    fields,
    body: lines
      .slice(end + 1)
      .join("\n")
      .trim(),
  };
}

/** A field as text (a block list is joined with ", "); undefined when absent or empty. */
export function textField(fields: Record<string, FrontmatterValue>, key: string): string | undefined {
  const value = fields[key];
  if (value === undefined) return undefined;
  const text = (Array.isArray(value) ? value.join(", ") : value).trim();
  return text.length > 0 ? text : undefined;
}

/** A field as a list: a block list, `[a, b]`, or `a, b`. */
export function listField(fields: Record<string, FrontmatterValue>, key: string): string[] | undefined {
  const value = fields[key];
  if (value === undefined) return undefined;
  const items = Array.isArray(value) ? value : value.replace(/^\[(.*)\]$/s, "$1").split(",");
  return items.map(unquote).filter((item) => item.length > 0);
}

export function booleanField(fields: Record<string, FrontmatterValue>, key: string): boolean | undefined {
  const value = fields[key];
  if (value === "true" || value === "yes") return true;
  if (value === "false" || value === "no") return false;
  return undefined;
}
