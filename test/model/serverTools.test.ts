// What a server_tool event carries (src/model/serverTools.ts): the call's info and the summary
// line, decided once for the runtime's live events and a replayed session alike.
import { describe, expect, test } from "bun:test";
import { serverToolInfo, serverToolSummary } from "../../src/model/serverTools.ts";

describe("server_tool display", () => {
  test("`Search the web: <query>`, kind fetch, one visible line", () => {
    expect(serverToolInfo("web_search", { query: "bun compile\ntext import" })).toEqual({
      title: "Search the web: bun compile ↵ text import",
      kind: "fetch",
      locations: [],
    });
    expect(serverToolInfo("web_search", null).title).toBe("Search the web: ");
    // Another server tool shows its name.
    expect(serverToolInfo("code_execution", { code: "1" })).toEqual({
      title: "code_execution",
      kind: "fetch",
      locations: [],
    });
  });

  test("a summary line for the result", () => {
    expect(
      serverToolSummary("web_search", [
        { type: "web_search_result", url: "a" },
        { type: "web_search_result", url: "b" },
      ]),
    ).toBe("2 results");
    expect(
      serverToolSummary("web_search", { type: "web_search_tool_result_error", error_code: "max_uses_exceeded" }),
    ).toBe("Search failed: max_uses_exceeded");
    expect(serverToolSummary("web_search_tool_result", [])).toBe("Done");
  });
});
