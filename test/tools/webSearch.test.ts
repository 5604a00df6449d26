// web_search (Anthropic's server tool): request options from settings, the once-per-session
// consent through the real permission engine (what a server_tool event shows: test/model/serverTools.test.ts).
import { describe, expect, test } from "bun:test";
import { createPermissionEngine } from "../../src/permission/engine.ts";
import type { Choice, Decision, PermissionRequest } from "../../src/permission/types.ts";
import type { Mode } from "../../src/core-types/mode.ts";
import { WebSearchGate, webSearchConsentRequest, webSearchOptions } from "../../src/tools/webSearch.ts";

describe("webSearchOptions", () => {
  test("off unless enabled; max uses clamped to 1–20, default 5", () => {
    expect(webSearchOptions({})).toBeUndefined();
    expect(webSearchOptions({ enabled: false, maxUses: 3 })).toBeUndefined();
    expect(webSearchOptions({ enabled: true })).toEqual({ maxUses: 5 });
    expect(webSearchOptions({ enabled: true, maxUses: 50 })).toEqual({ maxUses: 20 });
    expect(webSearchOptions({ enabled: true, maxUses: 0 })).toEqual({ maxUses: 1 });
  });

  test(
    "domain lists: cleaned; the allowed list wins (the API takes one); a domain " +
      "both allowed and blocked is blocked",
    () => {
      expect(
        webSearchOptions({ enabled: true, blockedDomains: ["https://Spam.example/path", "spam.example", " "] }),
      ).toEqual({ maxUses: 5, blockedDomains: ["spam.example"] });
      expect(
        webSearchOptions({
          enabled: true,
          allowedDomains: ["docs.python.org", "evil.example"],
          blockedDomains: ["evil.example"],
        }),
      ).toEqual({ maxUses: 5, allowedDomains: ["docs.python.org"] });
      expect(
        webSearchOptions({ enabled: true, allowedDomains: ["evil.example"], blockedDomains: ["evil.example"] }),
      ).toBeUndefined();
    },
  );
});

describe("WebSearchGate: asked once per session", () => {
  const root = "/work/project";
  const home = "/home/user";

  function session(answers: Choice[]) {
    const engine = createPermissionEngine({ root, home, sandboxAvailable: true });
    const questions: string[] = [];
    const approver = {
      ask: async (request: { question?: string }) => {
        questions.push(request.question ?? "");
        return answers.shift() ?? "deny";
      },
    };
    const authorize =
      (mode: Mode) =>
      (request: PermissionRequest): Promise<Decision> =>
        engine.authorize(request, { mode, approver, signal: new AbortController().signal });
    return { questions, authorize };
  }

  test("the consent is an input-kind request for web_search that the engine asks about", () => {
    const request = webSearchConsentRequest({ maxUses: 5, allowedDomains: ["docs.python.org"] });
    expect(request).toMatchObject({
      tool: "web_search",
      readOnly: false,
      target: { kind: "input" },
      question: "Let the model search the web in this session?",
    });
    expect(request.preview).toContain("up to 5 per request; only docs.python.org");
    expect(createPermissionEngine({ root, home, sandboxAvailable: true }).check(request, "build").outcome).toBe("ask");
  });

  test("allowed once → every later request offers search without asking", async () => {
    const { questions, authorize } = session(["once"]);
    const gate = new WebSearchGate({ enabled: true, maxUses: 3 });
    const signal = new AbortController().signal;
    expect(gate.state).toBe("unasked");
    expect(await gate.options(authorize("build"), signal)).toEqual({ maxUses: 3 });
    expect(await gate.options(authorize("build"), signal)).toEqual({ maxUses: 3 });
    expect(questions).toEqual(["Let the model search the web in this session?"]);
    expect(gate.state).toBe("allowed");
  });

  test("refused by the user → never offered and never asked again in this session", async () => {
    const { questions, authorize } = session(["deny", "once"]);
    const gate = new WebSearchGate({ enabled: true });
    const signal = new AbortController().signal;
    expect(await gate.options(authorize("build"), signal)).toBeUndefined();
    expect(await gate.options(authorize("build"), signal)).toBeUndefined();
    expect(questions).toHaveLength(1);
    expect(gate.state).toBe("refused");
  });

  test("a plan-mode denial is not an answer: the next build-mode request asks", async () => {
    const { questions, authorize } = session(["once"]);
    const gate = new WebSearchGate({ enabled: true });
    const signal = new AbortController().signal;
    expect(await gate.options(authorize("plan"), signal)).toBeUndefined();
    expect(questions).toHaveLength(0);
    expect(gate.state).toBe("unasked");
    expect(await gate.options(authorize("build"), signal)).toEqual({ maxUses: 5 });
    expect(questions).toHaveLength(1);
  });

  test("off by settings: never asks", async () => {
    const { questions, authorize } = session(["once"]);
    const gate = new WebSearchGate({ enabled: false });
    expect(await gate.options(authorize("build"), new AbortController().signal)).toBeUndefined();
    expect(questions).toHaveLength(0);
    expect(gate.state).toBe("off");
  });
});
