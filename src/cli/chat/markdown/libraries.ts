// The Markdown lexer (marked) and the highlighter (highlight.js core with the languages people
// paste most), imported statically here and nowhere else: this module is itself loaded with
// import() (loader.ts) at the chat's first answer, so `garuda --version`, `--help` and ACP never
// load either library.
import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import c from "highlight.js/lib/languages/c";
import cpp from "highlight.js/lib/languages/cpp";
import css from "highlight.js/lib/languages/css";
import diff from "highlight.js/lib/languages/diff";
import dockerfile from "highlight.js/lib/languages/dockerfile";
import go from "highlight.js/lib/languages/go";
import ini from "highlight.js/lib/languages/ini";
import java from "highlight.js/lib/languages/java";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import makefile from "highlight.js/lib/languages/makefile";
import markdown from "highlight.js/lib/languages/markdown";
import python from "highlight.js/lib/languages/python";
import rust from "highlight.js/lib/languages/rust";
import shell from "highlight.js/lib/languages/shell";
import sql from "highlight.js/lib/languages/sql";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";
import { Lexer, type Token } from "marked";

export interface MarkdownLibraries {
  /** The block tokens of `source` (GitHub-flavoured: tables, task lists, strikethrough). */
  lex(source: string): Token[];
  /** highlight.js's HTML for `code`, or undefined for a language it does not know. */
  highlight(code: string, language: string): string | undefined;
}

const LANGUAGES = {
  bash,
  c,
  cpp,
  css,
  diff,
  dockerfile,
  go,
  ini,
  java,
  javascript,
  json,
  makefile,
  markdown,
  python,
  rust,
  shell,
  sql,
  typescript,
  xml,
  yaml,
};

export function createLibraries(): MarkdownLibraries {
  const highlighter = hljs.newInstance();
  for (const [name, language] of Object.entries(LANGUAGES)) highlighter.registerLanguage(name, language);
  return {
    lex: (source) => new Lexer({ gfm: true }).lex(source),
    highlight: (code, language) => {
      if (language === "" || !highlighter.getLanguage(language)) return undefined;
      return highlighter.highlight(code, { language, ignoreIllegals: true }).value;
    },
  };
}
