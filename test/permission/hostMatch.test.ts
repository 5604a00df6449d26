import { describe, expect, test } from "bun:test";
import { hostOfUrl, matchHost } from "../../src/permission/hostMatch.ts";

describe("host patterns", () => {
  const table: [pattern: string, host: string, matches: boolean][] = [
    ["github.com", "github.com", true],
    ["github.com", "api.github.com", false],
    ["*.github.com", "api.github.com", true],
    ["*.github.com", "a.b.github.com", true],
    ["*.github.com", "github.com", false],
    ["*.github.com", "evilgithub.com", false],
    ["GitHub.COM", "github.com.", true],
    ["domain:docs.rs", "docs.rs", true],
    ["localhost:8080", "localhost", true],
    ["*", "anything.example", true],
  ];
  test.each(table)("%p vs %p → %p", (pattern, host, matches) => {
    expect(matchHost(pattern, host)).toBe(matches);
  });

  test("hosts of URLs", () => {
    expect(hostOfUrl("https://API.GitHub.com/repos")).toBe("api.github.com");
    expect(hostOfUrl("http://[::1]:3000/")).toBe("::1");
    expect(hostOfUrl("not a url")).toBeUndefined();
  });
});
