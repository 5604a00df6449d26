// Secrets by identity, not by name (issue 31.4): a file in the project that is ~/.ssh/id_rsa under
// another name — a hard link, or a bind mount of the file or of ~/.ssh — is refused like the key
// itself by read_file, symbols, @-mentions (the editor's file links), grep, glob and
// find_definition, through the real pipeline (registry, permission engine, file tools). Before,
// one generic "Allow once" sent the key through a hard link, and a bind mount (one name) was read
// without a question. Negative controls: a hard link of a file that is not a secret still only asks
// and is read once allowed; an ordinary file is found and read.
import { describe, expect, test } from "bun:test";
import { linkSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createPermissionEngine } from "../../src/permission/engine.ts";
import { writeFiles } from "../support/toolFixtures.ts";
import { approving, mentionsOf, pipeline, place, userRule } from "../support/toolPipeline.ts";

const KEY_LINE = "fake-ssh-key-body-31d4";
const KEY = `-----BEGIN OPENSSH PRIVATE KEY-----\n${KEY_LINE} needle\n-----END OPENSSH PRIVATE KEY-----\n`;

/** The home's ~/.ssh/id_rsa (and a config beside it, whose name no pattern knows). */
function plantKey(home: string): string {
  mkdirSync(join(home, ".ssh"), { mode: 0o700 });
  writeFileSync(join(home, ".ssh", "id_rsa"), KEY, { mode: 0o600 });
  writeFileSync(join(home, ".ssh", "config"), `Host x\n  # ${KEY_LINE} needle\n`);
  return join(home, ".ssh", "id_rsa");
}

const TWIN = "is the same file as ~/.ssh/id_rsa (another name for it: a link, a hard link or a mount)";

describe("a hard link of a secret is refused like the secret", () => {
  test("read_file: denied without a question, even by a user who allows everything and with read(**)", async () => {
    using where = place();
    linkSync(plantKey(where.home), join(where.root, "notes.txt"));
    const approver = approving();
    const p = pipeline(where, { approver, rules: [userRule("allow", "read(**)")] });
    const read = await p.call("read_file", { path: "notes.txt" });
    expect(read.status).toBe("denied");
    expect(read.output).toContain(`notes.txt ${TWIN}`);
    expect(read.output).not.toContain(KEY_LINE);
    expect(approver.asked).toEqual([]);
    // No allow rule opens the secret through another name: one naming this name, nor one naming the secret.
    for (const rule of ["read(notes.txt)", "read(~/.ssh/id_rsa)"]) {
      const allowed = await pipeline(where, { approver, rules: [userRule("allow", rule)] }).call("read_file", {
        path: "notes.txt",
      });
      expect(allowed.status).toBe("denied");
      expect(allowed.output).not.toContain(KEY_LINE);
    }
  });

  test("a change is refused too, as the secret's own is (an edit's question shows the old text)", async () => {
    using where = place();
    linkSync(plantKey(where.home), join(where.root, "notes.txt"));
    const engine = createPermissionEngine({ root: where.root, home: where.home, sandboxAvailable: true });
    const approver = approving();
    const decision = await engine.authorize(
      {
        tool: "write_file",
        readOnly: false,
        target: { kind: "path", path: join(where.root, "notes.txt"), access: "write" },
        title: "Write notes.txt",
        preview: "",
      },
      { mode: "build", approver, signal: new AbortController().signal },
    );
    expect(decision).toMatchObject({ outcome: "deny", by: "sensitive" });
    expect(decision.outcome === "deny" && decision.reason).toContain(`notes.txt ${TWIN}`);
    expect(approver.asked).toEqual([]);
  });

  test("negative control: a hard link of a file that is not a secret asks, and is read once allowed", async () => {
    using where = place();
    plantKey(where.home);
    writeFiles(where.home, { "plain.txt": `${KEY_LINE} needle\n` });
    linkSync(join(where.home, "plain.txt"), join(where.root, "notes.txt"));
    const approver = approving();
    const read = await pipeline(where, { approver }).call("read_file", { path: "notes.txt" });
    expect(approver.asked).toHaveLength(1);
    expect(read.output).toContain(KEY_LINE);
  });

  test(
    "grep, glob, find_definition and symbols: the link is skipped in folders with a " + "note, refused when named",
    async () => {
      using where = place();
      const key = plantKey(where.home);
      linkSync(key, join(where.root, "notes.txt"));
      linkSync(key, join(where.root, "code.ts"));
      writeFiles(where.root, { "plain.ts": "export function needle() {}\n" });
      const approver = approving();
      const p = pipeline(where, { approver, codeIndex: true });

      const grep = await p.call("grep", { pattern: "needle" });
      expect(grep.output).toContain("plain.ts:1:export function needle() {}");
      expect(grep.output).not.toContain(KEY_LINE);
      expect(grep.output).toContain(
        "Not searched: 2 files that are a secret file (a key or credential) under another name",
      );
      const named = await p.call("grep", { pattern: "needle", path: "notes.txt" });
      expect(named.status).toBe("denied");
      expect(named.output).not.toContain(KEY_LINE);

      const glob = await p.call("glob", { pattern: "*" });
      expect(glob.output.split("\n")[0]).toBe("plain.ts");
      expect(glob.output).not.toContain("notes.txt");
      expect(glob.output).not.toContain("code.ts");
      expect(glob.output).toContain("Not listed: 2 matching files that are secret files");

      const definition = await p.call("find_definition", { name: "needle" });
      expect(definition.output).toContain("plain.ts");
      expect(definition.output).not.toContain(KEY_LINE);
      expect(definition.output).toContain("Not searched: 1 file that is a secret file");
      const namedDefinition = await p.call("find_definition", { name: "needle", path: "code.ts" });
      expect(namedDefinition.status).toBe("denied");
      const symbols = await p.call("symbols", { path: "code.ts" });
      expect(symbols.status).toBe("denied");
      expect(approver.asked).toEqual([]);
    },
  );

  test("negative control: without the links, the same searches find the same needle and list every file", async () => {
    using where = place();
    plantKey(where.home);
    writeFiles(where.root, { "plain.ts": "export function needle() {}\n", "notes.txt": "needle\n" });
    const p = pipeline(where, { codeIndex: true });
    const grep = await p.call("grep", { pattern: "needle" });
    expect(grep.output).not.toContain("Not searched");
    expect((await p.call("glob", { pattern: "*" })).output.split("\n").sort()).toEqual(["notes.txt", "plain.ts"]);
  });

  test("@-mention and the editor's file link: not attached, and says why", async () => {
    using where = place();
    linkSync(plantKey(where.home), join(where.root, "notes.txt"));
    const approver = approving();
    const result = await mentionsOf(where, "see @notes.txt", approver);
    expect(result.blocks).toEqual([]);
    expect(result.notices[0]).toContain(`@notes.txt was not attached: notes.txt ${TWIN}`);
    expect(approver.asked).toEqual([]);
  });
});

/** Mounts `source` on `target` (bind), or says why not (not root, no CAP_SYS_ADMIN here). */
function bindMount(source: string, target: string): boolean {
  return Bun.spawnSync(["mount", "--bind", source, target], { stderr: "ignore" }).exitCode === 0;
}

/** The mounts made, undone when disposed (before the folders they are in are removed). */
function mounts() {
  const made: string[] = [];
  return {
    bind(source: string, target: string): boolean {
      const ok = bindMount(source, target);
      if (ok) made.push(target);
      return ok;
    },
    [Symbol.dispose]: () => {
      while (made.length > 0) Bun.spawnSync(["umount", made.pop() as string]);
    },
  };
}

const canMount = (() => {
  if (process.platform !== "linux" || process.getuid?.() !== 0) return false;
  using where = place();
  writeFiles(where.root, { "a.txt": "a\n", "b.txt": "b\n" });
  const ok = bindMount(join(where.root, "a.txt"), join(where.root, "b.txt"));
  if (ok) Bun.spawnSync(["umount", join(where.root, "b.txt")]);
  return ok;
})();

describe.skipIf(!canMount)("a bind mount of a secret (one name, same device) is refused like the secret", () => {
  test(
    "~/.ssh/id_rsa mounted on a project file, ~/.ssh on a project folder: read, " + "mention, grep and glob refuse",
    async () => {
      using where = place();
      const key = plantKey(where.home);
      writeFiles(where.root, { "notes.txt": "notes\n", "plain.ts": "export function needle() {}\n" });
      mkdirSync(join(where.root, "keys"));
      using mount = mounts();
      expect(mount.bind(key, join(where.root, "notes.txt"))).toBe(true);
      expect(mount.bind(join(where.home, ".ssh"), join(where.root, "keys"))).toBe(true);
      const approver = approving();
      const p = pipeline(where, { approver, codeIndex: true });

      for (const path of ["notes.txt", "keys/config", "keys/id_rsa"]) {
        const read = await p.call("read_file", { path });
        expect(read.status).toBe("denied");
        expect(read.output).not.toContain(KEY_LINE);
      }
      const grep = await p.call("grep", { pattern: "needle" });
      expect(grep.output).toContain("plain.ts:1:");
      expect(grep.output).not.toContain(KEY_LINE);
      const glob = await p.call("glob", { pattern: "**/*" });
      expect(glob.output).not.toContain("notes.txt");
      expect(glob.output).not.toContain("keys/config");
      expect(JSON.stringify(p.events)).not.toContain(KEY_LINE);
      expect(approver.asked).toEqual([]);

      const mention = await mentionsOf(where, "see @keys/config", approver);
      expect(mention.blocks).toEqual([]);
      expect(mention.notices[0]).toContain("is the same file as ~/.ssh/config");
    },
  );
});
