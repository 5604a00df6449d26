import { describe, expect, test } from "bun:test";
import { RequestBody } from "../../src/sandbox/requestBody.ts";

const bytes = (text: string) => new TextEncoder().encode(text);
const text = (part: Uint8Array | undefined) => (part === undefined ? undefined : new TextDecoder().decode(part));

/** Feeds `input` in pieces of `step` bytes; returns what went on (undefined: refused) and whether the body ended. */
function feed(body: RequestBody, input: string, step = input.length) {
  let out = "";
  for (let i = 0; i < input.length; i += step) {
    const part = text(body.take(bytes(input.slice(i, i + step))));
    if (part === undefined) return { out: undefined, complete: body.complete };
    out += part;
  }
  return { out, complete: body.complete };
}

describe("RequestBody", () => {
  test("Content-Length: exactly that many bytes go on, whatever the pieces; nothing after", () => {
    for (const step of [1, 3, 100])
      expect(feed(new RequestBody({ kind: "length", length: 5 }), "helloGET / HTTP/1.1\r\n\r\n", step)).toEqual({
        out: "hello",
        complete: true,
      });
  });

  test("no body: nothing goes on", () => {
    expect(feed(new RequestBody({ kind: "length", length: 0 }), "GET /next HTTP/1.1\r\n\r\n")).toEqual({
      out: "",
      complete: true,
    });
  });

  test("chunked: the chunks, extensions and trailers go on as they are, up to the end of the last chunk", () => {
    const body = "5;name=x\r\nhello\r\nA\r\n0123456789\r\n0\r\nX-Trailer: 1\r\n\r\n";
    for (const step of [1, 2, 7, 1000])
      expect(feed(new RequestBody({ kind: "chunked" }), `${body}GET /next HTTP/1.1\r\n\r\n`, step)).toEqual({
        out: body,
        complete: true,
      });
  });

  test("chunked, not yet ended: all goes on and it waits for more", () => {
    expect(feed(new RequestBody({ kind: "chunked" }), "5\r\nhel")).toEqual({ out: "5\r\nhel", complete: false });
  });

  test(
    "a broken chunked framing is refused: no CRLF after the data, a bare LF, a size " +
      "that is no number, an endless line",
    () => {
      for (const broken of [
        "5\r\nhelloXX",
        "5\nhello\r\n",
        "zz\r\n",
        "5\r\nhello\r\n0\r\nX: 1\n\r\n",
        "1".repeat(5000),
      ])
        expect(feed(new RequestBody({ kind: "chunked" }), broken).out).toBeUndefined();
    },
  );
});
