// highlight.js's HTML turned into terminal colours, line by line: each scope class maps to a
// colour of the Style (the innermost scope with one wins), entities are decoded, and the lines
// come back already split so a code block streams and wraps row by row.
import type { Style } from "../style.ts";

type Paint = (text: string) => string;

/** The colour of a highlight.js scope ("hljs-keyword" → keyword), by its first name. */
function paintFor(scope: string, style: Style): Paint | undefined {
  const name = scope.replace(/^hljs-/, "").split(/[ .]/)[0] ?? "";
  switch (name) {
    case "keyword":
    case "selector-tag":
    case "doctag":
      return style.magenta;
    case "string":
    case "regexp":
    case "addition":
    case "symbol":
      return style.green;
    case "number":
    case "literal":
    case "variable":
    case "template-variable":
      return style.yellow;
    case "comment":
    case "quote":
    case "meta":
      return style.dim;
    case "title":
    case "section":
    case "function":
      return style.blue;
    case "built_in":
    case "type":
    case "class":
    case "attr":
    case "attribute":
    case "property":
    case "params":
    case "name":
    case "tag":
    case "selector-class":
      return style.cyan;
    case "deletion":
      return style.red;
    case "emphasis":
      return style.italic;
    case "strong":
      return style.bold;
    default:
      return undefined;
  }
}

const ENTITIES: Readonly<Record<string, string>> = { amp: "&", lt: "<", gt: ">", quot: '"', "#x27": "'", "#39": "'" };
const decode = (text: string) =>
  text.replace(/&(amp|lt|gt|quot|#x27|#39);/g, (_, name: string) => ENTITIES[name] ?? "");
const TAG = /<span class="([^"]*)">|<\/span>/g;

/** The code's lines with colours, from highlight.js's `html` of it. */
export function htmlToLines(html: string, style: Style): string[] {
  const lines: string[] = [""];
  const stack: (Paint | undefined)[] = [];
  const emit = (raw: string) => {
    if (raw === "") return;
    const paint = stack.findLast((entry) => entry !== undefined);
    const parts = decode(raw).split("\n");
    parts.forEach((part, i) => {
      if (i > 0) lines.push("");
      if (part !== "") lines[lines.length - 1] += paint ? paint(part) : part;
    });
  };
  let at = 0;
  for (const match of html.matchAll(TAG)) {
    emit(html.slice(at, match.index));
    at = match.index + match[0].length;
    if (match[1] === undefined) stack.pop();
    else stack.push(paintFor(match[1], style));
  }
  emit(html.slice(at));
  return lines;
}
