import { describe, expect, test } from "bun:test";
import { bodyFraming, hostHeader, originHead, parseRequestHead } from "../../src/sandbox/httpHead.ts";

const head = (text: string) => {
  const parsed = parseRequestHead(text);
  if (!parsed) throw new Error(`not a head: ${text}`);
  return parsed;
};

describe("parseRequestHead", () => {
  test(
    "refuses what an origin could read as more headers: a bare LF or CR in a value, " +
      "a folded line, a name with a space",
    () => {
      for (const text of [
        "GET http://a/ HTTP/1.1\r\nX: a\nHost: evil\r\n",
        "GET http://a/ HTTP/1.1\r\nX: a\rHost: evil\r\n",
        "GET http://a/ HTTP/1.1\r\nX: a\r\n Host: evil\r\n",
        "GET http://a/ HTTP/1.1\r\nHost : evil\r\n",
        "GET http://a/ HTTP/1.1\r\nX: a\x00b\r\n",
      ])
        expect(parseRequestHead(text)).toBeUndefined();
      expect(parseRequestHead("GET http://a/ HTTP/1.1\r\nX:\ta b\t\r\n")?.headers).toEqual([["X", "a b"]]);
    },
  );
});

describe("bodyFraming", () => {
  test("reads Content-Length and chunked; no header, no body", () => {
    expect(bodyFraming(head("POST http://a/ HTTP/1.1\r\nContent-Length: 12\r\n"))).toEqual({
      kind: "length",
      length: 12,
    });
    expect(bodyFraming(head("POST http://a/ HTTP/1.1\r\nContent-Length: 3, 3\r\ncontent-length: 3\r\n"))).toEqual({
      kind: "length",
      length: 3,
    });
    expect(bodyFraming(head("POST http://a/ HTTP/1.1\r\nTransfer-Encoding: Chunked\r\n"))).toEqual({ kind: "chunked" });
    expect(bodyFraming(head("GET http://a/ HTTP/1.1\r\n"))).toEqual({ kind: "length", length: 0 });
  });

  test("refuses every framing two parsers could read apart", () => {
    for (const text of [
      "POST http://a/ HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n",
      "POST http://a/ HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 4\r\n",
      "POST http://a/ HTTP/1.1\r\nContent-Length: -1\r\n",
      "POST http://a/ HTTP/1.1\r\nContent-Length: 0x10\r\n",
      "POST http://a/ HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n",
      "POST http://a/ HTTP/1.1\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n",
      "POST http://a/ HTTP/1.0\r\nTransfer-Encoding: chunked\r\n",
    ])
      expect(bodyFraming(head(text)).kind).toBe("invalid");
  });
});

describe("originHead", () => {
  test(
    "Host is the allowed host; the client's Host, hop and host-naming headers go; " + "the framing is the proxy's",
    () => {
      const request = head(
        "POST http://a.test/p?q HTTP/1.1\r\nHost: evil.test\r\nhost: " +
          "evil2.test\r\nX-Forwarded-Host: evil.test\r\nForwarded: " +
          "host=evil.test\r\nUpgrade: h2c\r\nConnection: Upgrade\r\nProxy-Authorization: " +
          "Basic x\r\nContent-Length: 2, 2\r\nAccept: */*\r\n",
      );
      expect(originHead(request, "/p?q", "a.test", bodyFraming(request))).toBe(
        "POST /p?q HTTP/1.1\r\nHost: a.test\r\nAccept: */*\r\nContent-Length: 2\r\nConnection: close\r\n\r\n",
      );
    },
  );

  test("hostHeader: the port unless it is 80, IPv6 in brackets", () => {
    expect(hostHeader("a.test", 80)).toBe("a.test");
    expect(hostHeader("a.test", 8080)).toBe("a.test:8080");
    expect(hostHeader("::1", 8080)).toBe("[::1]:8080");
  });
});
