import { describe, expect, test } from "bun:test";
import { type AttemptFailure, failureError, isRetryable, retryAfterMs, retryDelayMs } from "../../src/model/retry.ts";

const OPTIONS = { maxAttempts: 5, baseDelayMs: 100, maxDelayMs: 1_000 };
const http = (status: number, headers: Record<string, string> = {}, errorType?: string): AttemptFailure => ({
  kind: "http",
  status,
  headers: new Headers(headers),
  ...(errorType !== undefined && { errorType }),
});

describe("isRetryable", () => {
  const cases: Array<[string, AttemptFailure, boolean]> = [
    ["408", http(408), true],
    ["409", http(409), true],
    ["429", http(429), true],
    ["500", http(500), true],
    ["503", http(503), true],
    ["529", http(529), true],
    ["400", http(400), false],
    ["401", http(401), false],
    ["403", http(403), false],
    ["404", http(404), false],
    ["413", http(413), false],
    ["x-should-retry: true on 400", http(400, { "x-should-retry": "true" }), true],
    ["x-should-retry: false on 529", http(529, { "x-should-retry": "false" }), false],
    ["stream overloaded_error", { kind: "stream", errorType: "overloaded_error" }, true],
    ["stream api_error", { kind: "stream", errorType: "api_error" }, true],
    ["stream invalid_request_error", { kind: "stream", errorType: "invalid_request_error" }, false],
    ["connection", { kind: "connection", message: "ECONNRESET" }, true],
  ];
  for (const [name, failure, expected] of cases) {
    test(name, () => expect(isRetryable(failure)).toBe(expected));
  }
});

describe("retryAfterMs", () => {
  test("retry-after-ms, then retry-after in seconds, then as an HTTP date", () => {
    expect(retryAfterMs(new Headers({ "retry-after-ms": "250", "retry-after": "9" }))).toBe(250);
    expect(retryAfterMs(new Headers({ "retry-after": "2" }))).toBe(2_000);
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(retryAfterMs(new Headers({ "retry-after": "Thu, 01 Jan 2026 00:00:03 GMT" }), now)).toBe(3_000);
  });

  test("missing or unreadable values give undefined; huge ones are capped at 5 minutes", () => {
    expect(retryAfterMs(undefined)).toBeUndefined();
    expect(retryAfterMs(new Headers({ "retry-after": "soon" }))).toBeUndefined();
    expect(retryAfterMs(new Headers({ "retry-after": "86400" }))).toBe(300_000);
  });
});

describe("retryDelayMs", () => {
  test("exponential backoff from the base, capped, with up to 25% jitter off", () => {
    const none = () => 0;
    expect(retryDelayMs(http(529), 1, OPTIONS, none)).toBe(100);
    expect(retryDelayMs(http(529), 2, OPTIONS, none)).toBe(200);
    expect(retryDelayMs(http(529), 3, OPTIONS, none)).toBe(400);
    expect(retryDelayMs(http(529), 10, OPTIONS, none)).toBe(1_000);
    expect(retryDelayMs(http(529), 1, OPTIONS, () => 1)).toBe(75);
    expect(retryDelayMs({ kind: "connection", message: "x" }, 2, OPTIONS, () => 0.5)).toBe(175);
  });

  test("the server's retry-after wins over backoff, even above the cap", () => {
    expect(retryDelayMs(http(429, { "retry-after": "3" }), 1, OPTIONS)).toBe(3_000);
  });
});

describe("failureError", () => {
  test("each message says what happened and what to do", () => {
    const url = "https://api.anthropic.com";
    expect(failureError(http(403, {}, "permission_error"), 1, url).message).toBe(
      "Anthropic refused the request (403 permission_error). Check that this API key " +
        "may use the model, or run `garuda setup` with another key.",
    );
    expect(
      failureError({ kind: "http", status: 404, errorType: "not_found_error", message: "model: claude-nope" }, 1, url)
        .message,
    ).toBe(
      "Anthropic did not find what was asked for (404 not_found_error: model: " +
        "claude-nope). Check the model id in ~/.garuda/models.json (`garuda models` " +
        "lists them) and the base URL https://api.anthropic.com.",
    );
    const rateLimited = failureError(
      { kind: "http", status: 429, errorType: "rate_limit_error", message: "slow down" },
      5,
      url,
    );
    expect(rateLimited.message).toBe(
      "Anthropic kept rate-limiting the requests (429 rate_limit_error: slow down); " +
        "gave up after 5 attempts. Wait a minute and try again, or check your rate " +
        "limits in the Anthropic Console.",
    );
    expect(rateLimited.retryable).toBe(true);
    const streamFailure = failureError(
      { kind: "stream", errorType: "api_error", message: "Internal server error" },
      2,
      url,
    );
    expect(streamFailure.message).toBe(
      "Anthropic had a server error (stream error api_error: Internal server error); " +
        "gave up after 2 attempts. Try again shortly.",
    );
    expect(streamFailure.status).toBeUndefined();
  });
});
