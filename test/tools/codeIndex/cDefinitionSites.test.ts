import { describe, expect, test } from "bun:test";
import {
  blankCommentsAndStrings,
  type CFamily,
  mayDefine,
  mayDefineIn,
  mayDefineOnLine,
} from "../../../src/tools/codeIndex/cDefinitionSites.ts";

describe("C/C++ mentions that could be a definition", () => {
  test.each([
    ["\tbuf = kmalloc(sizeof(*buf), GFP_KERNEL);\n", false],
    ["\treturn kmalloc(1, 2);\n", false],
    ["\tkmalloc(1, 2);\n", false],
    ["/* kmalloc failed */\n", false],
    ["// kmalloc\n", false],
    ['\tpr_err("kmalloc failed");\n', false],
    ["struct kmalloc *p;\n", false],
    ["x = dev->kmalloc;\n", false],
    ["int kmalloc_array(int);\n", false],
    ["void *kmalloc(size_t s)\n{\n}\n", true],
    ["static void\nkmalloc(size_t s)\n{\n}\n", true],
    ["#define kmalloc(s) foo\n", true],
    ["struct kmalloc {\n", true],
    ["struct kmalloc\n{\n", true],
    ["} kmalloc;\n", true],
    ["int /* the allocator */ kmalloc(int size);\n", true],
    ["enum { A,\n\tkmalloc,\n};\n", true],
  ])("C: %j → %p", (text, expected) => {
    expect(mayDefine(text, "kmalloc", false)).toBe(expected);
  });

  test("C++: an indented name followed by ( may be a constructor or member", () => {
    expect(mayDefine("class Client {\n\tClient(int r) : x(r) {}\n};\n", "Client", true)).toBe(true);
    expect(mayDefine("\tkmalloc(1, 2);\n", "kmalloc", false)).toBe(false);
  });

  test("comments and strings are blanked to the same length, newlines kept", () => {
    const text = 'a /* b\nc */ d // e\n"f\\"g" \'h\'';
    const blank = blankCommentsAndStrings(text);
    expect(blank.length).toBe(text.length);
    expect(blank).toBe(`a     \n     d     \n${" ".repeat(10)}`);
  });

  test("line by line, every file that may define the name has a line that may (what rg's lines are sorted by)", () => {
    const files: Array<[CFamily, string]> = [
      ["c", "void *kmalloc(size_t s)\n{\n}\n"],
      ["c", "static void\nkmalloc(size_t s)\n{\n}\n"],
      ["c", "int /* the allocator */ kmalloc(int size);\n"],
      ["c", "/* a comment\n that ends */ int kmalloc(void) { return 0; }\n"],
      ["c", "} kmalloc;\n"],
      ["header", "class A {\n\tkmalloc(int);\n};\n"],
      ["cpp", "\tkmalloc(int r) : x(r) {}\n"],
    ];
    for (const [family, text] of files) {
      const lines = text.split("\n").some((line) => mayDefineOnLine(family, line, "kmalloc"));
      expect({ text, may: mayDefineIn(family, text, "kmalloc"), lines }).toEqual({ text, may: true, lines: true });
    }
    // And it does sort out plain uses.
    expect(mayDefineOnLine("c", "\tbuf = kmalloc(sizeof(*buf), GFP_KERNEL);", "kmalloc")).toBe(false);
    expect(mayDefineOnLine("c", "\treturn kmalloc(1, 2);", "kmalloc")).toBe(false);
  });
});
