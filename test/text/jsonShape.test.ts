import { describe, expect, test } from "bun:test";
import { cutStrings, cutText, fitJson, jsonBytes } from "../../src/text/cut.ts";
import { jsonShape, jsonTextDepth, mapJson, MAX_JSON_DEPTH, TOO_DEEP } from "../../src/text/jsonShape.ts";

/** A value nested `depth` arrays deep, built without recursion. */
function nested(depth: number): unknown {
  let value: unknown = "leaf";
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

describe("jsonShape / jsonTextDepth / mapJson", () => {
  test("the depth of a JSON text: brackets in strings and after escapes do not count", () => {
    expect(jsonTextDepth("1")).toBe(0);
    expect(jsonTextDepth('{"a":[1,{"b":2}]}')).toBe(3);
    expect(jsonTextDepth('{"a":"[[[{{{\\"[[["}')).toBe(1);
    expect(jsonTextDepth(`${"[".repeat(100_000)}${"]".repeat(100_000)}`)).toBe(100_000);
  });

  test("a value 100,000 levels deep is measured without overflowing the stack, and stops at the bound", () => {
    const deep = nested(100_000);
    expect(() => JSON.stringify(deep)).toThrow(RangeError);
    expect(jsonShape(deep).depth).toBe(MAX_JSON_DEPTH + 1);
    expect(jsonShape(nested(MAX_JSON_DEPTH)).depth).toBe(MAX_JSON_DEPTH);
    expect(jsonShape({ a: "x".repeat(1000), b: [1, 2] }).chars).toBeGreaterThan(1000);
    // A cycle is a deep value too, not a hang.
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(jsonShape(cycle).depth).toBe(MAX_JSON_DEPTH + 1);
  });

  test("mapJson maps every string, keeps keys, and cuts what is nested deeper than its bound", () => {
    expect(mapJson({ a: ["x", 1, null, { b: "y" }] }, (text, key) => `${key ?? "-"}:${text.toUpperCase()}`)).toEqual({
      a: ["-:X", 1, null, { b: "b:Y" }],
    });
    const cut = mapJson(nested(100_000), (text) => text, 3);
    expect(cut).toEqual([[[TOO_DEEP]]]);
    // Negative control: a value within the bound is copied whole.
    expect(mapJson(nested(MAX_JSON_DEPTH), (text) => text)).toEqual(nested(MAX_JSON_DEPTH));
  });
});

describe("cutText / fitJson", () => {
  test("a cut says how much was left out, and never splits a surrogate pair", () => {
    expect(cutText("abcdef", 10)).toBe("abcdef");
    expect(cutText("abcdef", 4)).toBe("abcd\n[… 2 more characters left out]");
    expect(cutText("ab😀cd", 3)).toBe("ab\n[… 4 more characters left out]");
    expect(cutText("abc", 3, 1_000)).toBe("abc\n[… 997 more characters left out]");
  });

  test("fitJson cuts a message's strings until it fits, and leaves one that fits (or a kept key) alone", () => {
    const small = { a: "b" };
    expect(fitJson(small, 100)).toBe(small);
    const big = {
      method: "session/update",
      params: { text: "é".repeat(5_000_000), keep: "k".repeat(50_000), note: "short" },
    };
    const fitted = fitJson(big, 1_000_000, new Set(["keep"]));
    expect(jsonBytes(fitted)).toBeLessThanOrEqual(1_000_000);
    expect(fitted?.params.note).toBe("short");
    expect(fitted?.params.keep).toHaveLength(50_000);
    expect(fitted?.params.text).toMatch(/\[… [\d,]+ more characters left out\]$/);
    // Too many entries to fit by cutting strings: the list is cut, with how many were left out.
    const list = fitJson({ list: Array.from({ length: 100_000 }, () => "x") }, 10_000);
    expect(jsonBytes(list)).toBeLessThanOrEqual(10_000);
    expect(list?.list.at(-1)).toMatch(/^\[… [\d,]+ more entries left out\]$/);
    const keys = fitJson(Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`k${i}`, i])), 10_000);
    expect(keys?.["…"]).toMatch(/more entries left out/);
    // Nothing can make this fit: undefined, the caller sends something else.
    expect(fitJson({ a: "x".repeat(1_000) }, 10)).toBeUndefined();
    expect(cutStrings({ a: "x".repeat(10) }, 4)).toEqual({ a: "xxxx\n[… 6 more characters left out]" });
  });
});
