// The secrets by identity (files/secretIdentities.ts): every file and folder at or under a secret
// place, a link in a place by its target, and a key made later seen at the next revalidation.
import { describe, expect, test } from "bun:test";
import { mkdirSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SecretIdentities, cutNotice } from "../../src/files/secretIdentities.ts";
import { secretPlaces } from "../../src/files/secrets.ts";
import { tempDir } from "../support/tempDir.ts";

const identity = (path: string) => {
  const stats = statSync(path);
  return [stats.dev, stats.ino] as const;
};

describe("secret identities", () => {
  test(
    "files and folders under the places, links by their targets; other home files " +
      "are not secrets (negative control)",
    async () => {
      using home = tempDir("garuda-ids-");
      mkdirSync(join(home.path, ".ssh", "keys.d"), { recursive: true });
      writeFileSync(join(home.path, ".ssh", "id_rsa"), "key\n");
      writeFileSync(join(home.path, ".ssh", "keys.d", "deploy"), "key\n");
      mkdirSync(join(home.path, "dotfiles"));
      writeFileSync(join(home.path, "dotfiles", "id_ed25519"), "key\n");
      symlinkSync(join(home.path, "dotfiles", "id_ed25519"), join(home.path, ".ssh", "id_ed25519"));
      writeFileSync(join(home.path, ".bashrc"), "rc\n");
      const set = await new SecretIdentities(secretPlaces(home.path)).current();
      expect(set.secretOf(...identity(join(home.path, ".ssh", "id_rsa")))).toBe(join(home.path, ".ssh", "id_rsa"));
      expect(set.secretOf(...identity(join(home.path, ".ssh", "keys.d", "deploy")))).toBeDefined();
      expect(set.secretOf(...identity(join(home.path, ".ssh")))).toBe(join(home.path, ".ssh"));
      expect(set.secretOf(...identity(join(home.path, "dotfiles", "id_ed25519")))).toBe(
        join(home.path, ".ssh", "id_ed25519"),
      );
      expect(set.secretOf(...identity(join(home.path, ".bashrc")))).toBeUndefined();
      expect(set.secretOf(...identity(join(home.path, "dotfiles")))).toBeUndefined();
      expect(set.cut).toBe(false);
    },
  );

  test("a key made after the first walk is in the set at the next revalidation (at most a second later)", async () => {
    using home = tempDir("garuda-ids-");
    mkdirSync(join(home.path, ".ssh"));
    const identities = new SecretIdentities(secretPlaces(home.path));
    await identities.current();
    writeFileSync(join(home.path, ".ssh", "id_new"), "key\n");
    await Bun.sleep(1_050);
    const set = await identities.current();
    expect(set.secretOf(...identity(join(home.path, ".ssh", "id_new")))).toBe(join(home.path, ".ssh", "id_new"));
    expect(identities.latest()).toBe(set);
  });

  test(
    "a cut walk (a huge ~/.garuda/snapshots) still holds every credential, and is " +
      "reported once with the place it stopped in",
    async () => {
      using home = tempDir("garuda-ids-");
      const claude = join(home.path, ".claude", ".credentials.json");
      const mcp = join(home.path, ".garuda", "mcp.json");
      const snapshots = join(home.path, ".garuda", "snapshots");
      mkdirSync(join(home.path, ".claude"), { recursive: true });
      mkdirSync(join(snapshots, "p"), { recursive: true });
      writeFileSync(claude, '{"claudeAiOauth":{"accessToken":"sk-ant-oat"}}');
      writeFileSync(mcp, '{"servers":{"gh":{"env":{"GITHUB_TOKEN":"ghp_x"}}}}');
      // Months of undo snapshots, one file per change: more than the cap (small here, 50,000 in use).
      for (let i = 0; i < 201; i++) writeFileSync(join(snapshots, "p", String(i)), "");
      const reported: string[] = [];
      const identities = new SecretIdentities(secretPlaces(home.path), {
        maxEntries: 200,
        onCut: (text) => reported.push(text),
      });
      const set = await identities.current();
      expect(set.cut).toBe(true);
      expect({ claude: set.secretOf(...identity(claude)), mcp: set.secretOf(...identity(mcp)) }).toEqual({
        claude,
        mcp,
      });
      expect(reported).toEqual([cutNotice(snapshots, 200)]);
      await Bun.sleep(1_050);
      expect((await identities.current()).cut).toBe(true);
      expect(reported).toHaveLength(1);
    },
  );

  test("a walk under the cap is not reported (negative control)", async () => {
    using home = tempDir("garuda-ids-");
    mkdirSync(join(home.path, ".garuda", "snapshots"), { recursive: true });
    for (let i = 0; i < 150; i++) writeFileSync(join(home.path, ".garuda", "snapshots", String(i)), "");
    const reported: string[] = [];
    const set = await new SecretIdentities(secretPlaces(home.path), {
      maxEntries: 200,
      onCut: (text) => reported.push(text),
    }).current();
    expect(set.cut).toBe(false);
    expect(reported).toEqual([]);
  });
});
