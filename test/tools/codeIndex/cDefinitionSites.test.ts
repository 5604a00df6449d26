import { describe, expect, test } from "bun:test";
import { blankCommentsAndStrings, mayDefine } from "../../../src/tools/codeIndex/cDefinitionSites.ts";

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
});
