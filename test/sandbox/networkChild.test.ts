// The network child's arguments (networkChild.ts): a port and nothing else, so nothing else (no
// secret) can ever be on its command line; anything else fails before any namespace is touched.
import { describe, expect, test } from "bun:test";
import { NETWORK_CHILD_FAILED, parseNetworkChildArgs, runNetworkChild } from "../../src/sandbox/networkChild.ts";

describe("network child arguments", () => {
  test("--port <n> and nothing else", () => {
    expect(parseNetworkChildArgs(["--port", "3128"])).toBe(3128);
    expect(parseNetworkChildArgs(["--port", "0"])).toBeUndefined();
    expect(parseNetworkChildArgs(["--port", "65536"])).toBeUndefined();
    expect(parseNetworkChildArgs(["--port", "3128", "--token", "x"])).toBeUndefined();
    expect(parseNetworkChildArgs(["--port"])).toBeUndefined();
    expect(parseNetworkChildArgs(["--port", "31a"])).toBeUndefined();
  });

  test("bad arguments fail with the bridge's failure status, before anything is opened", () => {
    const written: string[] = [];
    const write = process.stderr.write;
    process.stderr.write = ((text: string) => written.push(text) > 0) as typeof process.stderr.write;
    try {
      expect(runNetworkChild(["--socket", "/x"])).toBe(NETWORK_CHILD_FAILED);
    } finally {
      process.stderr.write = write;
    }
    expect(written.join("")).toContain("usage: --make-network --port <n>");
  });
});
