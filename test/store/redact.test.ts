import { describe, expect, test } from "bun:test";
import { createRedactor, MIN_SECRET_LENGTH, REDACTED, redactValue } from "../../src/store/redact.ts";

describe("redaction", () => {
  const redact = createRedactor(["my-listed-provider-key", "short"]);

  test("listed secrets go wherever they appear; too-short ones are not searched for", () => {
    expect(redact("key=my-listed-provider-key;")).toBe(`key=${REDACTED};`);
    expect("short".length).toBeLessThan(MIN_SECRET_LENGTH);
    expect(redact("a short word")).toBe("a short word");
  });

  test("common key and token shapes", () => {
    const cases: [string, string][] = [
      ["x sk-ant-api03-AAAAAAAAAAAAAAAAAAAAAAAA y", `x ${REDACTED} y`],
      ["sk-or-v1-0123456789abcdef0123", REDACTED],
      ["token ghp_0123456789abcdefghij0123456789", `token ${REDACTED}`],
      ["github_pat_11AAAAAAA0123456789_abcdefghijkl", REDACTED],
      ["AKIAIOSFODNN7EXAMPLE", REDACTED],
      ["Authorization: Bearer abc.def.ghi-123", `Authorization: Bearer ${REDACTED}`],
      ["xoxb-1234567890-abcdefghij", REDACTED],
      [
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n-----END OPENSSH PRIVATE KEY-----\nafter",
        `${REDACTED}\nafter`,
      ],
      ["-----BEGIN PRIVATE KEY-----\ncut off", REDACTED],
      ['GITHUB_TOKEN="abcdef123456"', `GITHUB_TOKEN="${REDACTED}"`],
      ["export OPENAI_API_KEY=whatever-it-is", `export OPENAI_API_KEY=${REDACTED}`],
      // Red team: shapes a prompt pastes often that were kept as typed.
      ["hf_abcdefghijklmnopqrstuvwxyzABCDEFGH", REDACTED],
      ["ya29.a0AfH6SMCabcdefghijklmnopqrstuvwxyz", REDACTED],
      ["eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c", REDACTED],
      [
        "DATABASE_URL is postgres://app:s3cr3t-pass@db.example.com:5432/app",
        `DATABASE_URL is postgres://app:${REDACTED}@db.example.com:5432/app`,
      ],
    ];
    for (const [input, output] of cases) expect(redact(input)).toBe(output);
  });

  test("ordinary text stays as it is (negative control)", () => {
    const text =
      "npm test -- --grep 'sk-' && git push origin main # task: AKIA docs; Bearer of " +
      "news; see https://example.com:8080/a@b and git@github.com:o/r.git, hf_x";
    expect(redact(text)).toBe(text);
  });

  test("redactValue reaches every string in nested values and leaves the rest", () => {
    expect(
      redactValue({ a: ["my-listed-provider-key", 3, null], b: { c: true, d: "Bearer abcdefghij" } }, redact),
    ).toEqual({
      a: [REDACTED, 3, null],
      b: { c: true, d: `Bearer ${REDACTED}` },
    });
  });
});
