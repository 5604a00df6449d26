// HTML → readable Markdown for web_fetch: page chrome (scripts, styles, navigation, footers,
// embedded frames and widgets) removed first, the page's main part kept when it marks one
// (a single <main> or <article>), links and images made absolute, then node-html-markdown.
// Both libraries are plain JavaScript with no DOM, so they work inside the compiled binary.
import { NodeHtmlMarkdown } from "node-html-markdown";
import { type HTMLElement, parse } from "node-html-parser";

const CHROME = [
  "script",
  "style",
  "noscript",
  "template",
  "nav",
  "footer",
  "iframe",
  "frame",
  "svg",
  "canvas",
  "object",
  "embed",
  "button",
  "input",
  "select",
  "textarea",
  "dialog",
];

const converter = (): NodeHtmlMarkdown =>
  new NodeHtmlMarkdown({ maxConsecutiveNewlines: 2, keepDataImages: false, useLinkReferenceDefinitions: false });

function absolutize(root: HTMLElement, base: URL | undefined, tag: string, attribute: string): void {
  for (const element of root.querySelectorAll(tag)) {
    const value = element.getAttribute(attribute);
    if (value === undefined) continue;
    if (/^\s*(javascript|vbscript|data):/i.test(value)) {
      element.removeAttribute(attribute);
      continue;
    }
    if (!base) continue;
    try {
      element.setAttribute(attribute, new URL(value, base).href);
    } catch {
      element.removeAttribute(attribute);
    }
  }
}

/** The single element of this kind, if the page has exactly one. */
function only(root: HTMLElement, selector: string): HTMLElement | undefined {
  const found = root.querySelectorAll(selector);
  return found.length === 1 ? found[0] : undefined;
}

export interface Converted {
  title: string | undefined;
  markdown: string;
}

export function htmlToMarkdown(html: string, pageUrl?: URL): Converted {
  const root = parse(html, { comment: false, lowerCaseTagName: true });
  const title = root.querySelector("title")?.text.replace(/\s+/g, " ").trim() || undefined;
  const baseHref = root.querySelector("base")?.getAttribute("href");
  let base = pageUrl;
  if (baseHref !== undefined && pageUrl) {
    try {
      base = new URL(baseHref, pageUrl);
    } catch {
      base = pageUrl;
    }
  }
  for (const element of root.querySelectorAll(CHROME.join(","))) element.remove();
  for (const element of root.querySelectorAll('[hidden], [aria-hidden="true"]')) element.remove();
  absolutize(root, base, "a", "href");
  absolutize(root, base, "img", "src");
  const content = only(root, "main") ?? only(root, "article") ?? root.querySelector("body") ?? root;
  const markdown = converter()
    .translate(content.toString())
    .replace(/[ \t]+$/gm, "")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
  return { title, markdown };
}
