// The sandbox hints as a pure function of (output, root, spec): which failures are the
// sandbox's doing, and which are not.
import { describe, expect, test } from "bun:test";
import { mkdirSync, realpathSync } from "node:fs";
import { join } from "node:path";
import type { SandboxSpec } from "../../src/sandbox/types.ts";
import { sandboxHints } from "../../src/tools/sandboxHints.ts";
import { tempDir } from "../support/tempDir.ts";

function project(): { root: string; spec: SandboxSpec; [Symbol.dispose](): void } {
  const dir = tempDir("garuda-hints-");
  const base = realpathSync(dir.path);
  const root = join(base, "project");
  mkdirSync(join(root, ".git", "hooks"), { recursive: true });
  mkdirSync(join(base, "home"));
  const spec: SandboxSpec = {
    root,
    home: join(base, "home"),
    tmpDir: join(base, "tmp"),
    projectReadOnly: false,
    writePaths: [],
    protectedPaths: [],
    denyReadPaths: [],
    network: { mode: "none" },
  };
  return { root, spec, [Symbol.dispose]: () => dir[Symbol.dispose]() };
}

describe("sandboxHints", () => {
  test("a refused write to a protected path inside the project (.git/hooks) is the sandbox's doing", () => {
    using p = project();
    const output = `cp: cannot create regular file '.git/hooks/pre-commit': Read-only file system`;
    const hints = sandboxHints(output, p.root, p.spec, "ask");
    expect(hints).toEqual([expect.stringContaining(`refused writing ${join(p.root, ".git/hooks/pre-commit")}`)]);
  });

  test("a copy that fails names what was being written, not what was read (git init into a held .git)", () => {
    using p = project();
    const target = join(p.root, ".git/description");
    const output =
      `fatal: cannot copy '/usr/share/git-core/templates/description' to '${target}': ` + `Read-only file system`;
    const hints = sandboxHints(output, p.root, p.spec, "ask");
    expect(hints).toEqual([expect.stringContaining(`refused writing ${target}`)]);
  });

  test(
    "plan mode: a refused write outside the project gets the plan-mode hint, not an " +
      "offer to run outside (which plan mode refuses)",
    () => {
      using p = project();
      const output = `touch: cannot touch '${join(p.spec.home, "notes.txt")}': Read-only file system`;
      const hints = sandboxHints(output, p.root, { ...p.spec, projectReadOnly: true }, "ask");
      expect(hints).toEqual([expect.stringContaining("in plan mode commands run in the sandbox")]);
      expect(hints.join("")).not.toContain("outside_sandbox");
    },
  );

  test("a permission error on a writable path (a chmod'ed file in the project) is not", () => {
    using p = project();
    const output = `bash: ${join(p.root, "locked.txt")}: Permission denied`;
    expect(sandboxHints(output, p.root, p.spec, "ask")).toEqual([]);
    expect(sandboxHints("error: tests failed (3 of 10)", p.root, p.spec, "ask")).toEqual([]);
  });

  test("the egress proxy's refusal names the host and the reason", () => {
    using p = project();
    const spec: SandboxSpec = { ...p.spec, network: { mode: "proxy", socketPath: "/tmp/x.sock", token: "t" } };
    const output =
      "curl: (56) CONNECT tunnel failed, response 403\nGaruda's egress proxy refused " +
      "evil.example:443: the user denied it\n";
    const hints = sandboxHints(output, p.root, spec, "ask");
    expect(hints).toEqual([
      "[Garuda: the sandbox's network proxy refused evil.example:443 (the user denied " +
        "it). If the task needs it, run the same command again with outside_sandbox: " +
        "true; the user will be asked to approve it.]",
    ]);
    const resolveFailure = sandboxHints("npm ERR! getaddrinfo EAI_AGAIN registry.npmjs.org", p.root, spec, "forbidden");
    expect(resolveFailure).toEqual([expect.stringContaining("reaches the network only through Garuda's proxy")]);
    expect(resolveFailure[0]).toContain("Commands may not run outside the sandbox here");
  });
});
