import { expect, test } from "bun:test";
import { decodeRaw, encodeRaw, hasRawBytes } from "../../src/store/rawNames.ts";

const bytes = (...parts: Array<string | number[]>) =>
  Buffer.concat(parts.map((part) => (typeof part === "string" ? Buffer.from(part, "utf8") : Buffer.from(part))));

test("valid UTF-8 reads as itself, and goes back as its UTF-8", () => {
  for (const name of ["a.c", "café/ü.txt", "emoji 😀\u{10080}", "\uFFFD real replacement char", ""]) {
    expect(decodeRaw(Buffer.from(name))).toBe(name);
    expect(hasRawBytes(name)).toBe(false);
    expect(encodeRaw(name)).toEqual(Buffer.from(name));
  }
});

test("each byte outside valid UTF-8 reads as a lone surrogate and goes back as that byte", () => {
  const cases = [
    bytes("caf", [0xe9], ".txt"), // Latin-1
    bytes([0xff, 0xfe]),
    bytes("a", [0xc3]), // a sequence cut short at the end
    bytes([0xe0, 0x80, 0x80]), // overlong
    bytes([0xed, 0xa0, 0x80]), // an encoded UTF-16 surrogate
    bytes([0xf4, 0x90, 0x80, 0x80]), // past U+10FFFF
    bytes("😀", [0x80], "é", [0xdc]),
  ];
  for (const raw of cases) {
    const text = decodeRaw(raw);
    expect(text.includes("\uFFFD")).toBe(false);
    expect(hasRawBytes(text)).toBe(true);
    expect(encodeRaw(text)).toEqual(raw);
  }
  expect(decodeRaw(bytes("caf", [0xe9], ".txt"))).toBe("caf\udce9.txt");
});
