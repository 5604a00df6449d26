// A unified diff of two texts for approval previews (the front end may show its own diff from
// CallInfo.change; this is the text form). Common lines at both ends are trimmed first, then the
// middle is aligned by longest common subsequence when it is small enough, else shown replaced.

export type LineOp = { type: "same" | "del" | "add"; line: string };
type Op = LineOp;

const MAX_CELLS = 4_000_000;

function splitLines(text: string): string[] {
  if (text.length === 0) return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

function middleOps(a: string[], b: string[]): Op[] {
  const n = a.length;
  const m = b.length;
  if (n === 0 || m === 0 || n * m > MAX_CELLS) {
    return [...a.map((line): Op => ({ type: "del", line })), ...b.map((line): Op => ({ type: "add", line }))];
  }
  // lcs[i][j] = LCS length of a[i..], b[j..]
  const width = m + 1;
  const lcs = new Uint32Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * width + j] =
        a[i] === b[j]
          ? (lcs[(i + 1) * width + j + 1] as number) + 1
          : Math.max(lcs[(i + 1) * width + j] as number, lcs[i * width + j + 1] as number);
    }
  }
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      ops.push({ type: "same", line: a[i] as string });
      i++;
      j++;
    } else if ((lcs[(i + 1) * width + j] as number) >= (lcs[i * width + j + 1] as number)) {
      ops.push({ type: "del", line: a[i++] as string });
    } else {
      ops.push({ type: "add", line: b[j++] as string });
    }
  }
  while (i < n) ops.push({ type: "del", line: a[i++] as string });
  while (j < m) ops.push({ type: "add", line: b[j++] as string });
  return ops;
}

/**
 * How `a` becomes `b`, line by line: common lines at both ends trimmed, the middle aligned by
 * longest common subsequence when small enough, else shown replaced. Lines compare exactly.
 */
export function diffLines(a: readonly string[], b: readonly string[]): LineOp[] {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  return [
    ...a.slice(0, start).map((line): Op => ({ type: "same", line })),
    ...middleOps(a.slice(start, endA), b.slice(start, endB)),
    ...a.slice(endA).map((line): Op => ({ type: "same", line })),
  ];
}

export interface Diff {
  text: string;
  added: number;
  removed: number;
}

/** A unified diff (`--- a/path`, `+++ b/path`, `@@` hunks); oldText null means a new file. */
export function unifiedDiff(
  path: string,
  oldText: string | null,
  newText: string,
  options: { context?: number; maxChars?: number } = {},
): Diff {
  const context = options.context ?? 3;
  const maxChars = options.maxChars ?? 20_000;
  const a = splitLines((oldText ?? "").replace(/\r\n/g, "\n"));
  const b = splitLines(newText.replace(/\r\n/g, "\n"));
  const ops = diffLines(a, b);
  const added = ops.filter((op) => op.type === "add").length;
  const removed = ops.filter((op) => op.type === "del").length;
  const out: string[] = [`--- ${oldText === null ? "/dev/null" : `a/${path}`}`, `+++ b/${path}`];
  // Positions of changes, grouped into hunks with `context` lines around them.
  const changed = ops.map((op, index) => (op.type === "same" ? -1 : index)).filter((index) => index >= 0);
  let k = 0;
  while (k < changed.length) {
    const first = changed[k] as number;
    let last = first;
    while (k + 1 < changed.length && (changed[k + 1] as number) - last <= 2 * context + 1)
      last = changed[++k] as number;
    k++;
    const from = Math.max(0, first - context);
    const to = Math.min(ops.length - 1, last + context);
    let oldLine = 1;
    let newLine = 1;
    for (let i = 0; i < from; i++) {
      if (ops[i]?.type !== "add") oldLine++;
      if (ops[i]?.type !== "del") newLine++;
    }
    const slice = ops.slice(from, to + 1);
    const oldCount = slice.filter((op) => op.type !== "add").length;
    const newCount = slice.filter((op) => op.type !== "del").length;
    out.push(
      `@@ -${oldCount === 0 ? oldLine - 1 : oldLine},${oldCount} ` +
        `+${newCount === 0 ? newLine - 1 : newLine},${newCount} @@`,
    );
    for (const op of slice) out.push(`${op.type === "same" ? " " : op.type === "del" ? "-" : "+"}${op.line}`);
  }
  let text = out.join("\n");
  if (text.length > maxChars) {
    const cut = text.lastIndexOf("\n", maxChars);
    const shown = text.slice(0, cut > 0 ? cut : maxChars);
    const rest = text.slice(shown.length).split("\n").length - 1;
    text = `${shown}\n… ${rest} more diff lines not shown`;
  }
  return { text, added, removed };
}
