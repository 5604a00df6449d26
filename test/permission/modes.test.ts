import { describe, expect, test } from "bun:test";
import { resolveMode } from "../../src/permission/modes.ts";
import { emptyTeamPolicy } from "../../src/permission/teamPolicy.ts";
import { MANAGED, policyWith } from "../support/permissionFixtures.ts";

describe("modes the policy allows", () => {
  test("no policy: the requested mode", () => {
    expect(resolveMode(emptyTeamPolicy(), "build")).toEqual({ mode: "build" });
    expect(resolveMode(emptyTeamPolicy(), "plan")).toEqual({ mode: "plan" });
  });

  test("a policy that forces plan mode switches build to plan, with a notice naming the file", () => {
    const policy = policyWith({ allowedModes: { modes: ["plan"], origins: [MANAGED] } });
    const resolved = resolveMode(policy, "build");
    expect(resolved.mode).toBe("plan");
    expect(resolved.notice).toContain(MANAGED.file);
    expect(resolveMode(policy, "plan")).toEqual({ mode: "plan" });
  });
});
