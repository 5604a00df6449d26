// The shell parser must work inside the compiled binary (no files read at run time, no wasm
// to locate): compile a tiny program that uses it and run it from a folder with no node_modules.
import { expect, test } from "bun:test";
import { join } from "node:path";
import { tempDir } from "../support/tempDir.ts";

test("parseShell works in a `bun build --compile` binary", () => {
  using dir = tempDir("garuda-compile-");
  const entry = join(dir.path, "entry.ts");
  const parser = join(import.meta.dir, "../../src/permission/commandMatch.ts");
  Bun.write(
    entry,
    `import { analyzeCommand } from ${JSON.stringify(parser)};\nconst a = ` +
      `analyzeCommand(process.argv[2] ?? ` +
      `"");\nconsole.log(JSON.stringify(a.denyParts.map((part) => part.words)));\n`,
  );
  const binary = join(dir.path, "probe");
  const build = Bun.spawnSync([process.execPath, "build", "--compile", entry, "--outfile", binary], {
    stdout: "pipe",
    stderr: "pipe",
  });
  expect(build.stderr.toString()).not.toContain("error");
  expect(build.exitCode).toBe(0);
  const run = Bun.spawnSync([binary, "echo `id` && sudo /bin/rm -rf x | cat <(curl y)"], {
    cwd: dir.path,
    stdout: "pipe",
    stderr: "pipe",
  });
  expect(run.exitCode).toBe(0);
  expect(JSON.parse(run.stdout.toString())).toEqual([
    ["echo", "`id`"],
    ["id"],
    ["rm", "-rf", "x"],
    ["cat", "<(curl y)"],
    ["curl", "y"],
  ]);
}, 120_000);
