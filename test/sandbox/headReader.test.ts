import { describe, expect, test } from "bun:test";
import { HeadReader } from "../../src/sandbox/headReader.ts";
import { MAX_HEAD_BYTES } from "../../src/sandbox/httpHead.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

describe("HeadReader", () => {
  test("finds the head and what came with its end, whatever the pieces (CRLFs split between them)", () => {
    const input = "GET http://a.test/ HTTP/1.1\r\nHost: a.test\r\n\r\nbody";
    for (const step of [1, 2, 3, 5, input.length]) {
      const reader = new HeadReader("proxy-authorization");
      let result = reader.push(bytes(""));
      let fed = 0;
      while (fed < input.length && result.kind === "more") {
        result = reader.push(bytes(input.slice(fed, fed + step)));
        fed += step;
      }
      expect(result.kind).toBe("head");
      if (result.kind !== "head") return;
      expect(result.text).toBe("GET http://a.test/ HTTP/1.1\r\nHost: a.test\r\n");
      // The rest: what came in the same piece as the head's end.
      expect(new TextDecoder().decode(result.rest)).toBe(input.slice(input.indexOf("\r\n\r\n") + 4, fed));
    }
  });

  test(
    "the watched header is known as soon as its line ends, before the head does, " + "case aside; the first one counts",
    () => {
      const reader = new HeadReader("proxy-authorization");
      reader.push(bytes("GET http://a.test/ HTTP/1.1\r\nPROXY-Authorization:  Basic abc"));
      expect(reader.watched).toBeUndefined();
      expect(reader.push(bytes("\r\nProxy-Authorization: Basic other\r\nX-Pad: ")).kind).toBe("more");
      expect(reader.watched).toBe("Basic abc");
    },
  );

  test("the request line is not a header; a header named like it with a prefix is not it", () => {
    const reader = new HeadReader("proxy-authorization");
    reader.push(bytes("proxy-authorization: x\r\nX-Proxy-Authorization: y\r\n"));
    expect(reader.watched).toBeUndefined();
  });

  test("past MAX_HEAD_BYTES without its end: too large, also when it arrives whole", () => {
    const reader = new HeadReader("proxy-authorization");
    expect(reader.push(bytes(`GET / HTTP/1.1\r\nX: ${"a".repeat(MAX_HEAD_BYTES)}`)).kind).toBe("tooLarge");
    const whole = new HeadReader("proxy-authorization");
    expect(whole.push(bytes(`GET / HTTP/1.1\r\nX: ${"a".repeat(MAX_HEAD_BYTES)}\r\n\r\n`)).kind).toBe("tooLarge");
  });
});
