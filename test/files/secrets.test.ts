// One list of secrets: whatever the sandbox makes unreadable to commands, the permission engine
// refuses to the file tools and the search tools never show. Checked against the sandbox's own
// computed list (sandboxPaths(spec).denyRead), so a place added there and not here fails.
import { describe, expect, test } from "bun:test";
import { mkdirSync, realpathSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { createPermissionEngine } from "../../src/permission/engine.ts";
import { HOME_SECRETS, secretPlaces } from "../../src/files/secrets.ts";
import { sensitivePattern } from "../../src/permission/sensitive.ts";
import type { Rule } from "../../src/permission/types.ts";
import { realFs } from "../../src/sandbox/fsView.ts";
import { sandboxPaths } from "../../src/sandbox/paths.ts";
import type { SandboxSpec } from "../../src/sandbox/types.ts";
import { withheldPredicate } from "../../src/tools/withheldPaths.ts";
import { session, tempRoot, writeFiles } from "../support/toolFixtures.ts";

const MARK = "SECRET-TOKEN-7731";

function spec(root: string, home: string, tmpDir: string, denyReadPaths: string[] = []): SandboxSpec {
  return {
    root,
    home,
    tmpDir,
    projectReadOnly: false,
    writePaths: [],
    protectedPaths: [],
    denyReadPaths,
    network: { mode: "none" },
  };
}

const read = (path: string) => ({
  tool: "read_file",
  readOnly: true,
  target: { kind: "path" as const, path, access: "read" as const },
  title: "",
  preview: "",
});

describe("the sandbox's hidden paths are the file tools' sensitive paths", () => {
  test(
    "every path the sandbox hides (home, system, the runtime folder) is refused by " +
      "the engine and hidden from search",
    () => {
      using root = tempRoot();
      using home = tempRoot();
      using tmp = tempRoot();
      const runtimeDir = join(tmp.path, "run-user");
      mkdirSync(runtimeDir);
      const hidden = sandboxPaths(spec(root.path, home.path, tmp.path, [runtimeDir]), realFs).denyRead;
      expect(hidden.length).toBeGreaterThanOrEqual(HOME_SECRETS.length);
      // An allow rule for the whole home folder, so "outside the project" cannot be what refuses.
      const rules: Rule[] = [
        { effect: "allow", pattern: "read(~/**)", source: "user-policy" },
        { effect: "allow", pattern: `read(${tmp.path}/**)`, source: "user-policy" },
      ];
      const engine = createPermissionEngine({
        root: root.path,
        home: home.path,
        sandboxAvailable: true,
        rules,
        withheldFromCommands: [runtimeDir],
      });
      const isWithheld = withheldPredicate({ home: home.path, withheldFromCommands: [runtimeDir] });
      for (const place of hidden) {
        for (const path of [place, join(place, "inner")]) {
          expect({ path, outcome: engine.check(read(path), "build").outcome, withheld: isWithheld(path) }).toEqual({
            path,
            outcome: "deny",
            withheld: true,
          });
        }
      }
      // Negative control: a plain file next to them in the home folder is allowed and shown.
      expect(engine.check(read(join(home.path, "notes.txt")), "build").outcome).toBe("allow");
      expect(isWithheld(join(home.path, "notes.txt"))).toBe(false);
      expect(isWithheld(join(home.path, ".claude/settings.json"))).toBe(false);
    },
  );

  test("the places named in the issue: ~/.claude, ~/.garuda/mcp-auth.json, cargo and git credentials", () => {
    const places = secretPlaces("/home/u");
    for (const path of [
      "/home/u/.claude/.credentials.json",
      "/home/u/.claude.json",
      "/home/u/.garuda/mcp-auth.json",
      "/home/u/.cargo/credentials.toml",
      "/home/u/.cargo/credentials",
      "/home/u/.config/git/credentials",
      "/home/u/.docker/contexts/meta/x/meta.json",
      "/home/u/.config/gh/config.yml",
    ]) {
      expect({ path, hit: sensitivePattern(path, places) }).toEqual({ path, hit: expect.any(String) });
      // Before the one list these were hidden from commands only.
      expect({ path, byName: sensitivePattern(path) }).toEqual({ path, byName: undefined });
    }
    // A project's own .docker or .claude folder is not a secret.
    expect(sensitivePattern("/p/.docker/nginx.conf", places)).toBeUndefined();
    expect(sensitivePattern("/p/.claude/settings.json", places)).toBeUndefined();
  });

  test("registry, cloud, database and assistant token files are refused to the file tools as to commands", () => {
    const places = secretPlaces("/home/u");
    const engine = createPermissionEngine({
      root: "/home/u/project",
      home: "/home/u",
      sandboxAvailable: true,
      rules: [{ effect: "allow", pattern: "read(~/**)", source: "user-policy" }],
    });
    const tokenFiles = [
      ".terraform.d/credentials.tfrc.json",
      ".yarnrc.yml",
      ".pgpass",
      ".gradle/gradle.properties",
      ".m2/settings.xml",
      ".gem/credentials",
      ".config/composer/auth.json",
      ".vault-token",
      ".config/github-copilot/apps.json",
      ".config/github-copilot/hosts.json",
      ".config/hub",
      ".config/rclone/rclone.conf",
      ".local/share/uv/credentials/credentials.toml",
    ];
    for (const name of tokenFiles) {
      const path = join("/home/u", name);
      expect({ path, hit: sensitivePattern(path, places), outcome: engine.check(read(path), "build").outcome }).toEqual(
        { path, hit: expect.any(String), outcome: "deny" },
      );
    }
    // Negative control: the same tools' caches and plain settings stay readable.
    for (const name of [".gradle/caches/x.jar", ".m2/repository/x.pom", ".config/composer/config.json"])
      expect(engine.check(read(join("/home/u", name)), "build").outcome).toBe("allow");
  });

  test("a secret folder kept elsewhere through a link is hidden at its real place too", () => {
    using home = tempRoot();
    using dotfiles = tempRoot();
    mkdirSync(join(dotfiles.path, "claude"));
    symlinkSync(join(dotfiles.path, "claude"), join(home.path, ".claude"));
    const isWithheld = withheldPredicate({ home: home.path });
    expect(isWithheld(join(realpathSync(dotfiles.path), "claude/.credentials.json"))).toBe(true);
    expect(isWithheld(join(realpathSync(dotfiles.path), "claude/settings.json"))).toBe(false);
  });
});

describe("grep and glob over the home folder", () => {
  const secrets = [
    ".claude/.credentials.json",
    ".garuda/mcp-auth.json",
    ".cargo/credentials.toml",
    ".config/git/credentials",
    ".docker/contexts/meta.json",
    ".claude.json",
  ];

  test(
    "find nothing in the places the sandbox hides (negative control: a plain file " + "with the same text is found)",
    async () => {
      using home = tempRoot();
      writeFiles(home.path, Object.fromEntries([...secrets, "notes.txt"].map((name) => [name, `token = "${MARK}"\n`])));
      // The project is the home folder itself, the widest case: every secret is "inside the project".
      const s = session(home.path, { home: home.path });
      const found = await s.run("grep", { pattern: MARK, mode: "files" });
      expect(found.output).toBe("notes.txt");
      const listed = (await s.run("glob", { pattern: "**/*" })).output.split("\n");
      expect(listed).toContain("notes.txt");
      for (const name of secrets) expect(listed).not.toContain(name);
      for (const name of secrets) {
        const direct = await s.run("grep", { pattern: MARK, path: name });
        expect({ name, output: direct.output }).toEqual({
          name,
          output: `${name} may not be searched (the policy hides it).`,
        });
      }
    },
  );
});
