import { describe, expect, test } from "bun:test";
import { HIDDEN_WARNING } from "../../src/cli/approver.ts";
import { headerText } from "../../src/cli/approver.ts";
import { questionPreview } from "../../src/cli/chat/questionText.ts";
import type { ApprovalRequest } from "../../src/permission/types.ts";

const base: ApprovalRequest = {
  tool: "bash",
  title: "$ npm test",
  preview: "npm test",
  choices: ["once", "session", "deny"],
  labels: { once: "Allow once", session: "Allow for this session", deny: "Deny" },
  hidden: false,
};

describe("the shared approval text", () => {
  test("header asks about the title; a consent puts its question first", () => {
    expect(headerText(base)).toBe("Allow $ npm test?");
    expect(headerText({ ...base, question: "Start the MCP server github?" })).toBe(
      "Start the MCP server github?\n$ npm test",
    );
  });

  test("hidden characters are visible and the warning comes first", () => {
    const request = { ...base, preview: "ls \u202Etxt.sh", hidden: true };
    expect(questionPreview(request)).toBe(`${HIDDEN_WARNING}\nls ⟨U+202E⟩txt.sh`);
    expect(questionPreview(base)).toBe("npm test");
  });
});
