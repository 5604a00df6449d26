// The pure parts of setup: the mask, key parsing, menu keys, the key check, stdin's first line.
import { describe, expect, test } from "bun:test";
import { PassThrough } from "node:stream";
import { checkHeaders, checkKey, checkUrl } from "../../src/cli/setup/check.ts";
import { modelRows, tokens } from "../../src/cli/setup/choices.ts";
import { parseKeys } from "../../src/cli/setup/keys.ts";
import { maskKey } from "../../src/cli/setup/mask.ts";
import { maskEntry, type MenuState, menuKey, menuLines } from "../../src/cli/setup/prompts.ts";
import { keyProblem } from "../../src/cli/setup/state.ts";
import { readFirstLine } from "../../src/cli/setup/stdinKey.ts";
import { displayWidth, cutLine } from "../../src/cli/setup/terminal.ts";
import { BUILTIN_MODELS } from "../../src/model/catalog.ts";

describe("maskKey", () => {
  test("32 characters or more: the format's prefix and the last 4", () => {
    const key = `sk-ant-api03-${"a".repeat(30)}WXYZ`;
    expect(maskKey(key)).toBe("sk-ant-api03-…WXYZ");
    expect(maskKey(`sk-or-v1-${"b".repeat(40)}1234`)).toBe("sk-or-v1-…1234");
    // No recognisable prefix: the first 3 characters.
    expect(maskKey(`ABCDEFGH${"c".repeat(30)}9876`)).toBe("ABC…9876");
  });

  test("16 to 31 characters: the last 4 only; under 16: nothing of the key", () => {
    expect(maskKey("sk-ant-0123456789ab")).toBe("…89ab");
    expect(maskKey("x".repeat(31))).toBe("…xxxx");
    expect(maskKey("0123456789abcdef")).toBe("…cdef");
    expect(maskKey("0123456789abcde")).toBe("••••");
    expect(maskKey("")).toBe("••••");
  });

  test("a long prefix-like start reveals at most three segments", () => {
    const key = `sk-ant-api03-ab-cd-${"z".repeat(20)}QRST`;
    expect(maskKey(key)).toBe("sk-ant-api03-…QRST");
  });
});

describe("parseKeys", () => {
  test("arrows in both cursor modes, Enter, Backspace, Ctrl-C/D/U", () => {
    expect(parseKeys("\x1b[A\x1bOA\x1b[B\x1bOB").map((key) => key.name)).toEqual(["up", "up", "down", "down"]);
    expect(parseKeys("\r\n\x7f\b\x03\x04\x15").map((key) => key.name)).toEqual([
      "enter",
      "backspace",
      "backspace",
      "interrupt",
      "eof",
      "clear-line",
    ]);
  });

  test("a paste is many characters; unknown sequences and control characters are dropped", () => {
    const keys = parseKeys("\x1b[200~sk-1\x1b[201~\x1b[15~\tx\x00é\r");
    expect(keys).toEqual([
      { name: "char", char: "s" },
      { name: "char", char: "k" },
      { name: "char", char: "-" },
      { name: "char", char: "1" },
      { name: "char", char: "x" },
      { name: "char", char: "é" },
      { name: "enter" },
    ]);
    expect(parseKeys("\x1b")).toEqual([{ name: "escape" }]);
  });
});

describe("menu keys", () => {
  const at = (cursor: number): MenuState => ({ cursor, digits: "" });
  const char = (c: string) => ({ name: "char" as const, char: c });

  test("arrows move and wrap; Enter chooses", () => {
    expect(menuKey(at(0), { name: "down" }, 3)).toEqual({ cursor: 1, digits: "", chosen: false });
    expect(menuKey(at(2), { name: "down" }, 3).cursor).toBe(0);
    expect(menuKey(at(0), { name: "up" }, 3).cursor).toBe(2);
    expect(menuKey(at(1), { name: "enter" }, 3)).toEqual({ cursor: 1, digits: "", chosen: true });
    expect(menuKey(at(1), { name: "end" }, 3).cursor).toBe(2);
    expect(menuKey(at(1), { name: "home" }, 3).cursor).toBe(0);
  });

  test("a number moves to that item; two digits reach item 12; out of range starts again", () => {
    expect(menuKey(at(0), char("4"), 6)).toEqual({ cursor: 3, digits: "4", chosen: false });
    const one = menuKey(at(0), char("1"), 12);
    expect(menuKey(one, char("2"), 12)).toEqual({ cursor: 11, digits: "12", chosen: false });
    expect(menuKey({ cursor: 0, digits: "1" }, char("3"), 6)).toEqual({ cursor: 2, digits: "3", chosen: false });
    expect(menuKey(at(2), char("9"), 6)).toEqual({ cursor: 2, digits: "", chosen: false });
    expect(menuKey(at(2), char("0"), 6).cursor).toBe(2);
    expect(menuKey(at(2), char("x"), 6)).toEqual({ cursor: 2, digits: "", chosen: false });
  });
});

describe("display", () => {
  test("model rows show the label, the context window and the price", () => {
    const rows = modelRows(BUILTIN_MODELS, "claude-sonnet-5");
    expect(rows[1]).toMatch(
      /^claude-sonnet-5 +Claude Sonnet 5: speed and intelligence +1M context +\$2\/\$10 per MTok {2}\(default\)$/,
    );
    expect(rows[3]).toContain("200K context");
    expect(tokens(1_500_000)).toBe("1.5M");
  });

  test("lines are cut to the terminal's width, colours kept closed", () => {
    const line = `\x1b[36m${"x".repeat(50)}\x1b[0m`;
    const cut = cutLine(line, 20);
    expect(displayWidth(cut)).toBe(20);
    expect(cut.endsWith("…\x1b[0m")).toBe(true);
    expect(cutLine("short", 20)).toBe("short");
  });

  test("a long hidden entry shows at most 48 marks and its length", () => {
    expect(maskEntry(3)).toBe("•••");
    expect(maskEntry(108)).toBe(`${"•".repeat(48)} (108 characters)`);
  });

  test("keyProblem: empty, spaces, control characters, too long", () => {
    expect(keyProblem("sk-ant-ok")).toBeUndefined();
    expect(keyProblem("")).toBe("No key was entered");
    expect(keyProblem("a b")).toContain("does not look like a key");
    expect(keyProblem("abc\u00e9")).toContain("does not look like a key");
    expect(keyProblem("x".repeat(3000))).toContain("too long");
  });
});

describe("checkKey", () => {
  function serve(handler: (request: Request) => Response | Promise<Response>) {
    const seen: Array<{ path: string; apiKey: string | null }> = [];
    const server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch(request) {
        seen.push({ path: new URL(request.url).pathname, apiKey: request.headers.get("x-api-key") });
        return handler(request);
      },
    });
    return { url: `http://127.0.0.1:${server.port}`, seen, [Symbol.asyncDispose]: () => server.stop(true) };
  }
  const apiKey = { kind: "apiKey" as const, value: "sk-test-0123456789" };

  test("the URL and headers: x-api-key or Bearer, and anthropic-version", () => {
    expect(checkUrl(undefined)).toBe("https://api.anthropic.com/v1/models");
    expect(checkUrl("https://gw.example.com/anthropic/")).toBe("https://gw.example.com/anthropic/v1/models");
    expect(checkHeaders(apiKey)).toMatchObject({
      "x-api-key": "sk-test-0123456789",
      "anthropic-version": "2023-06-01",
    });
    const bearer = checkHeaders({ kind: "authToken", value: "tok" });
    expect(bearer.authorization).toBe("Bearer tok");
    expect(bearer["x-api-key"]).toBeUndefined();
  });

  test("200 is ok, 401 and 403 are refused, other answers cannot check it", async () => {
    for (const [status, expected] of [
      [200, "ok"],
      [401, "refused"],
      [403, "refused"],
      [500, "unchecked"],
      [429, "unchecked"],
      [404, "unchecked"],
    ] as const) {
      await using server = serve(() => new Response("{}", { status }));
      const result = await checkKey({ baseUrl: server.url, key: apiKey });
      expect(result.result).toBe(expected);
      expect(server.seen).toEqual([{ path: "/v1/models", apiKey: "sk-test-0123456789" }]);
    }
  });

  test("a redirect is not followed", async () => {
    await using target = serve(() => new Response("{}"));
    await using server = serve(() => Response.redirect(`${target.url}/v1/models`, 302));
    const result = await checkKey({ baseUrl: server.url, key: apiKey });
    expect(result).toMatchObject({ result: "unchecked" });
    expect(result.result === "unchecked" && result.reason).toContain("redirect (HTTP 302)");
    expect(target.seen).toHaveLength(0);
  });

  test("no answer within the time limit, or nothing listening: cannot check it", async () => {
    await using slow = serve(() => new Promise<Response>(() => {}));
    const timedOut = await checkKey({ baseUrl: slow.url, key: apiKey, timeoutMs: 100 });
    expect(timedOut).toMatchObject({
      result: "unchecked",
      reason: `${slow.url}/v1/models gave no answer within 100 ms`,
    });

    const closed = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("") });
    const url = `http://127.0.0.1:${closed.port}`;
    await closed.stop(true);
    const offline = await checkKey({ baseUrl: url, key: apiKey });
    expect(offline.result).toBe("unchecked");
    // The line names the URL that could not be reached.
    expect(offline.result === "unchecked" && offline.reason).toStartWith(`${url}/v1/models could not be reached`);
  });

  test("the caller's signal cancels it with the signal's reason", async () => {
    await using slow = serve(() => new Promise<Response>(() => {}));
    const controller = new AbortController();
    const reason = new Error("cancelled by the user");
    const pending = checkKey({ baseUrl: slow.url, key: apiKey, signal: controller.signal });
    setTimeout(() => controller.abort(reason), 50);
    await expect(pending).rejects.toBe(reason);
  });
});

describe("readFirstLine", () => {
  test("the first line, without its line end, in one or many chunks", async () => {
    const stream = new PassThrough();
    const line = readFirstLine(stream);
    stream.write("sk-ant");
    stream.write("-abc\r\nsecond line\n");
    expect(await line).toBe("sk-ant-abc");
  });

  test("the whole input when it has no line end; too long is an error", async () => {
    const stream = new PassThrough();
    const line = readFirstLine(stream);
    stream.end("no-newline");
    expect(await line).toBe("no-newline");
    const long = new PassThrough();
    const tooLong = readFirstLine(long, 10);
    long.write("x".repeat(20));
    await expect(tooLong).rejects.toThrow("too long");
  });
});

describe("menu window", () => {
  const style = { bold: (t: string) => t, dim: (t: string) => t, accent: (t: string) => t, warn: (t: string) => t };
  const items = Array.from({ length: 30 }, (_, i) => `model-${i + 1}`);

  test("a short list is drawn whole", () => {
    expect(menuLines({ style }, "Choose", items.slice(0, 3), 1)).toEqual([
      "Choose (↑/↓ or a number, then Enter)",
      "  1. model-1",
      "❯ 2. model-2",
      "  3. model-3",
    ]);
  });

  test("a long list shows a window around the cursor, and how many more there are", () => {
    const top = menuLines({ style }, "Choose", items, 0, 5);
    expect(top).toEqual([
      "Choose (↑/↓ or a number, then Enter)",
      "",
      "❯  1. model-1",
      "   2. model-2",
      "   3. model-3",
      "   4. model-4",
      "   5. model-5",
      "  … 25 more below",
    ]);
    const middle = menuLines({ style }, "Choose", items, 14, 5);
    expect(middle.slice(1)).toEqual([
      "  … 12 more above",
      "  13. model-13",
      "  14. model-14",
      "❯ 15. model-15",
      "  16. model-16",
      "  17. model-17",
      "  … 13 more below",
    ]);
    const end = menuLines({ style }, "Choose", items, 29, 5);
    expect(end.at(-2)).toBe("❯ 30. model-30");
    expect(end.at(-1)).toBe("");
  });
});
