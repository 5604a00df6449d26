import { describe, expect, test } from "bun:test";
import { HeadTailBuffer, TailBuffer, utf8Head, utf8Tail } from "../../src/sandbox/output.ts";

describe("HeadTailBuffer", () => {
  test("under the cap everything is kept, in order", () => {
    const buffer = new HeadTailBuffer(100);
    for (const part of ["one\n", "two\n", "three\n"]) buffer.push(part);
    expect(buffer.text()).toBe("one\ntwo\nthree\n");
    expect(buffer.truncated).toBe(false);
  });

  test("over the cap the head and the tail survive and the cut is said", () => {
    const buffer = new HeadTailBuffer(20);
    buffer.push("HEAD-0123456789");
    for (let i = 0; i < 100; i++) buffer.push("middle ");
    buffer.push("0123456789-TAIL");
    expect(buffer.truncated).toBe(true);
    const text = buffer.text();
    expect(text.startsWith("HEAD-01234")).toBe(true);
    expect(text.endsWith("56789-TAIL")).toBe(true);
    expect(text).toContain("bytes of output cut");
    const cut = Number(/\[(\d+) bytes/.exec(text)?.[1]);
    expect(cut + 20).toBe(15 + 700 + 15);
  });

  test("cuts never split a character", () => {
    const buffer = new HeadTailBuffer(9);
    buffer.push("ééééé"); // 10 bytes
    buffer.push("ü".repeat(20));
    const text = buffer.text();
    expect(text).not.toContain("\uFFFD");
    expect(text.startsWith("éé")).toBe(true);
    expect(text.endsWith("üü")).toBe(true);
  });
});

describe("TailBuffer", () => {
  test("keeps the newest bytes", () => {
    const ring = new TailBuffer(10);
    for (let i = 0; i < 50; i++) ring.push(`${i % 10}`);
    expect(ring.text()).toBe("0123456789");
  });
});

describe("utf8Head / utf8Tail", () => {
  test("byte limits on character boundaries", () => {
    expect(utf8Head("aé", 2)).toBe("a");
    expect(utf8Head("aé", 3)).toBe("aé");
    expect(utf8Tail("éa", 2)).toBe("a");
    expect(utf8Tail("éa", 3)).toBe("éa");
  });
});
