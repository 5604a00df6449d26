// Inline Markdown (emphasis, code spans, links …) as one styled string, ready to be wrapped.
// Only types come from marked here: the lexer itself is loaded lazily (loader.ts).
import type { Token, Tokens } from "marked";
import type { Style } from "../style.ts";

/**
 * A soft line break inside a code span is a blank, as CommonMark has it. In text it stays a line
 * break: an answer's single newlines are shown as written (a terminal is no browser reflowing
 * a paragraph), so lines the model broke on purpose are not run together.
 */
const SOFT_BREAK = /\n/g;

export function renderInline(tokens: readonly Token[] | undefined, style: Style): string {
  if (!tokens) return "";
  let out = "";
  for (const token of tokens) out += inlineToken(token, style);
  return out;
}

function inlineToken(token: Token, style: Style): string {
  switch (token.type) {
    case "text": {
      const text = token as Tokens.Text;
      return text.tokens ? renderInline(text.tokens, style) : text.text;
    }
    case "escape":
      return (token as Tokens.Escape).text;
    case "strong":
      return style.bold(renderInline((token as Tokens.Strong).tokens, style));
    case "em":
      return style.italic(renderInline((token as Tokens.Em).tokens, style));
    case "del":
      return style.strike(renderInline((token as Tokens.Del).tokens, style));
    case "codespan":
      return style.cyan((token as Tokens.Codespan).text.replace(SOFT_BREAK, " "));
    case "br":
      return "\n";
    case "link": {
      const link = token as Tokens.Link;
      const text = renderInline(link.tokens, style);
      const label = style.blue(style.underline(text));
      // The address is shown when the text does not already say it (a bare URL, an email).
      const plainText = link.text.replace(/^mailto:/, "");
      return plainText === link.href || plainText === link.href.replace(/^mailto:/, "")
        ? label
        : `${label} ${style.dim(`(${link.href})`)}`;
    }
    case "image": {
      const image = token as Tokens.Image;
      return style.dim(`[image: ${image.text || image.href}]`);
    }
    case "html":
      return style.dim((token as Tokens.HTML).text);
    default:
      return "raw" in token && typeof token.raw === "string" ? token.raw : "";
  }
}
