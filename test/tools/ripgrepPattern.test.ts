import { describe, expect, test } from "bun:test";
import { rustPattern } from "../../src/tools/ripgrepPattern.ts";

describe("rustPattern", () => {
  test("spells out JavaScript's meaning where Rust's differs", () => {
    expect(rustPattern("\\w+\\(", false)).toEqual({ pattern: "[0-9A-Za-z_]+\\x{28}", exact: true, ignoreCase: false });
    expect(rustPattern("\\bfoo", false)?.pattern).toBe("(?-u:\\b)foo");
    expect(rustPattern("a.b", false)?.pattern).toBe("a[^\\x{a}\\x{d}\\x{2028}\\x{2029}]b");
    expect(rustPattern("[^x]", false)?.pattern).toBe("[^\\x{a}\\x{d}x]");
    expect(rustPattern("a{", false)?.pattern).toBe("a\\{");
    expect(rustPattern("a{2,3}", false)?.pattern).toBe("a{2,3}");
    expect(rustPattern("[a&&b]", false)?.pattern).toBe("[a\\x{26}\\x{26}b]");
  });

  test(
    "ignoring case: ASCII letters spelt in both cases (exact); classes and escapes " + "left to rg's -i (inexact)",
    () => {
      expect(rustPattern("Kb_1", true)).toEqual({ pattern: "[kK][bB]_1", exact: true, ignoreCase: false });
      expect(rustPattern("[k]b", true)).toEqual({ pattern: "[k]b", exact: false, ignoreCase: true });
      expect(rustPattern("caf\u00e9", true)?.exact).toBe(false);
      expect(rustPattern("\\x41", true)?.exact).toBe(false);
    },
  );

  test("what only JavaScript reads is left to the tools' own search", () => {
    for (const pattern of ["a(?=b)", "a(?!b)", "(?<=a)b", "(a)\\1", "(?<n>a)", "a\\nb", "[^]", "[]", "\\p{L}", "😀"])
      expect({ pattern, rust: rustPattern(pattern, false) }).toEqual({ pattern, rust: undefined });
  });
});
