import { describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { createPermissionEngine } from "../../src/permission/engine.ts";
import type { PermissionRequest } from "../../src/permission/types.ts";
import { pathTarget, resolveToolPath, symlinkEscape } from "../../src/tools/paths.ts";
import { session, tempRoot, writeFiles } from "../support/toolFixtures.ts";

describe("path guard", () => {
  test("relative, absolute and ~ paths; display is relative inside the root", () => {
    using root = tempRoot();
    writeFiles(root.path, { "src/a.ts": "" });
    const rel = resolveToolPath("src/a.ts", root.path);
    expect(rel).toMatchObject({
      path: join(root.path, "src/a.ts"),
      realPath: join(root.path, "src/a.ts"),
      relative: "src/a.ts",
      exists: true,
      display: "src/a.ts",
    });
    expect(resolveToolPath(join(root.path, "src/../src/a.ts"), root.path).display).toBe("src/a.ts");
    expect(resolveToolPath("/etc/hosts", root.path)).toMatchObject({ relative: undefined, display: "/etc/hosts" });
    expect(resolveToolPath("~/notes.txt", root.path, "/home/u").path).toBe("/home/u/notes.txt");
    expect(resolveToolPath(".", root.path).display).toBe(".");
  });

  test("a new file in missing folders resolves through its nearest existing parent", () => {
    using root = tempRoot();
    using other = tempRoot();
    symlinkSync(other.path, join(root.path, "linked"));
    const fresh = resolveToolPath("linked/new/deep.txt", root.path);
    expect(fresh.exists).toBe(false);
    expect(fresh.realPath).toBe(join(other.path, "new/deep.txt"));
    expect(fresh.relative).toBe("linked/new/deep.txt");
    expect(fresh.realRelative).toBeUndefined();
  });

  test("a symlink out of the root is reported with both paths, and writing through it is refused", () => {
    using root = tempRoot();
    using outside = tempRoot();
    writeFiles(outside.path, { "secret.txt": "x" });
    symlinkSync(join(outside.path, "secret.txt"), join(root.path, "link.txt"));
    const resolved = resolveToolPath("link.txt", root.path);
    expect(pathTarget(resolved, "read")).toEqual({
      kind: "path",
      path: join(root.path, "link.txt"),
      access: "read",
      realPath: join(outside.path, "secret.txt"),
    });
    expect(symlinkEscape(resolved)).toBe(
      `link.txt is a symlink to ${join(outside.path, "secret.txt")}, which is outside ` +
        `the project. Garuda does not write through it. If that file is really meant, ` +
        `name its own path (the user is then asked).`,
    );
    // Negative control: a symlink that stays inside the root is fine.
    writeFiles(root.path, { "real.txt": "y" });
    symlinkSync(join(root.path, "real.txt"), join(root.path, "inner.txt"));
    expect(symlinkEscape(resolveToolPath("inner.txt", root.path))).toBeUndefined();
  });

  test("a dangling symlink resolves to where it points", () => {
    using root = tempRoot();
    mkdirSync(join(root.path, "dir"));
    symlinkSync("dir/target.txt", join(root.path, "dangling"));
    const resolved = resolveToolPath("dangling", root.path);
    expect(resolved.exists).toBe(false);
    expect(resolved.realPath).toBe(join(root.path, "dir/target.txt"));
  });

  test("the permission engine asks before read_file follows a symlink out of the root, and not for one inside", () => {
    using root = tempRoot();
    using outside = tempRoot();
    writeFiles(outside.path, { "data.txt": "x" });
    writeFiles(root.path, { "inside.txt": "y" });
    symlinkSync(join(outside.path, "data.txt"), join(root.path, "out-link"));
    symlinkSync(join(root.path, "inside.txt"), join(root.path, "in-link"));
    const engine = createPermissionEngine({ root: root.path, home: "/home/nobody", sandboxAvailable: true });
    const tool = session(root.path).tool("read_file");
    const request = (path: string): PermissionRequest => ({
      ...tool.plan({ path }, { root: root.path, home: "/home/nobody", sandbox: null, executor: {} as never })
        .permission,
      title: `Read ${path}`,
    });
    const out = engine.check(request("out-link"), "build");
    expect(out.outcome).toBe("ask");
    expect(out.outcome === "ask" && out.request.note).toBe("It is outside the project folder.");
    expect(engine.check(request("in-link"), "build").outcome).toBe("allow");
  });
});
