// The layout of test/ (issue 15.6), so a reader finds a test where the code it tests lives: a test
// sits in the test/ folder that mirrors its src/ folder (test/acp/ for src/acp/, test/cli/ for
// src/cli/ and its chat/, run/ and setup/ parts, named chat…, run…, setup…), shared helpers are in
// test/support/ only, programs the tests spawn and sample data in test/fixtures/, and every
// temporary folder is made by test/support/tempDir.ts. Pure checks over (path → source) maps, each
// shown to catch a planted file.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";

type Files = Map<string, string>;

const repo = join(import.meta.dir, "..");

/** Every .ts file under `dir` of the repository, keyed by its path (dir/…). */
function readTree(dir: string): Files {
  const files: Files = new Map();
  for (const entry of readdirSync(join(repo, dir), { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith(".ts")) continue;
    const path = join(entry.parentPath.slice(repo.length + 1), entry.name);
    files.set(path, readFileSync(join(repo, path), "utf8"));
  }
  return files;
}

/** test/ folders that mirror no src/ folder, each with what it tests. */
const OTHER_TEST_FOLDERS = [
  "test/support", // the helpers' own tests (the mock Messages API)
  "test/bench", // bench/
  "test/build", // scripts/build.ts, buildTargets.ts, archive.ts and the binary they make
  "test/scripts", // scripts/demo.ts
];
/** Tests at the top of test/ about the repository as a whole. */
const WHOLE_REPO_TESTS = ["test/architecture.test.ts", "test/layout.test.ts"];
/** The one non-test file outside support/ and fixtures/: bunfig.toml's preload. */
const PRELOAD = "test/preload.ts";
/** The file that makes temporary folders. */
const TEMP_DIR_HELPER = "test/support/tempDir.ts";

// Spelled from parts so this file does not itself hold what it looks for.
const MKDTEMP = ["mk", "dtemp"].join("");
const MKDTEMP_IMPORT = new RegExp(
  `import\\s*\\{[^}]*\\b${MKDTEMP}(?:Sync)?\\b[^}]*\\}\\s*from\\s*["'](?:node:)?fs(?:/promises)?["']`,
);
const MKDTEMP_CALL = new RegExp(`\\b${MKDTEMP}(?:Sync)?\\s*\\(`);

/** What breaks the layout, one line per problem. */
function layoutProblems(tests: Files, src: Files): string[] {
  const srcFolders = new Set([...src.keys()].map((path) => dirname(path)));
  const topSrcFiles = new Set(
    [...src.keys()].filter((path) => dirname(path) === "src").map((path) => path.slice("src/".length)),
  );
  const problems: string[] = [];
  for (const [path, source] of tests) {
    const folder = dirname(path);
    if (path.endsWith(".test.ts")) {
      const mirrored = srcFolders.has(`src${folder.slice("test".length)}`) && folder !== "test";
      const topMirror = folder === "test" && topSrcFiles.has(path.slice("test/".length).replace(/\.test\.ts$/, ".ts"));
      const allowed =
        mirrored ||
        topMirror ||
        WHOLE_REPO_TESTS.includes(path) ||
        OTHER_TEST_FOLDERS.some((other) => folder === other || folder.startsWith(`${other}/`));
      if (!allowed)
        problems.push(
          `${path}: no src/ folder ${folder.replace(/^test/, "src")} to mirror; put it in ` +
            `the test/ folder of the code it tests`,
        );
    } else if (path !== PRELOAD && !folder.startsWith("test/support") && !folder.startsWith("test/fixtures")) {
      problems.push(
        `${path}: a helper outside test/support/ (or a spawned program or sample data outside test/fixtures/)`,
      );
    }
    const ownTemp = MKDTEMP_IMPORT.test(source) || MKDTEMP_CALL.test(source);
    if (path === TEMP_DIR_HELPER) continue;
    if (ownTemp)
      problems.push(`${path}: makes its own temporary folder; use tempDir or makeTempDir of ${TEMP_DIR_HELPER}`);
  }
  return problems.sort();
}

const tests = readTree("test");
const src = readTree("src");
const planted = (path: string, source: string): Files => new Map([...tests, [path, source]]);

describe("the layout of test/", () => {
  test("every test mirrors a src/ folder, helpers are in support/, temporary folders come from tempDir.ts", () => {
    expect(tests.size).toBeGreaterThan(100);
    expect(tests.has(TEMP_DIR_HELPER)).toBe(true);
    expect(layoutProblems(tests, src)).toEqual([]);
  });

  test("negative controls: a test in a folder src/ lacks, a stray helper, an own temporary folder", () => {
    // A test of src/tools/grep.ts filed under a folder src/ does not have.
    expect(layoutProblems(planted("test/grep/grep.test.ts", ""), src)).toEqual([
      expect.stringContaining("test/grep/grep.test.ts: no src/ folder src/grep"),
    ]);
    // A test at the top of test/ that mirrors no top-level src/ file.
    expect(layoutProblems(planted("test/grep.test.ts", ""), src)).toEqual([
      expect.stringContaining("test/grep.test.ts: no src/ folder"),
    ]);
    // A helper module beside the tests that use it.
    expect(layoutProblems(planted("test/sandbox/lab.ts", "export const lab = 1;\n"), src)).toEqual([
      expect.stringContaining("test/sandbox/lab.ts: a helper outside test/support/"),
    ]);
    // A temporary folder made by hand, whether imported from node:fs or node:fs/promises.
    const byHand = `import { ${MKDTEMP}Sync } from "node:fs";\nconst dir = ${MKDTEMP}Sync("/tmp/x-");\n`;
    expect(layoutProblems(planted("test/tools/x.test.ts", byHand), src)).toEqual([
      expect.stringContaining("test/tools/x.test.ts: makes its own temporary folder"),
    ]);
    const promises = `import { ${MKDTEMP} } from "node:fs/promises";\n`;
    expect(layoutProblems(planted("test/support/x.ts", promises), src)).toEqual([
      expect.stringContaining("test/support/x.ts: makes its own temporary folder"),
    ]);
  });

  test("controls that pass: a mirrored test, nested mirrors, a fixture program, the helper itself", () => {
    const fine = planted("test/tools/codeIndex/x.test.ts", 'import { tempDir } from "../../support/tempDir.ts";\n');
    fine.set("test/cli/chatX.test.ts", "");
    fine.set("test/untilAborted.test.ts", "");
    fine.set("test/fixtures/server.ts", "");
    fine.set("test/build/x.test.ts", "");
    expect(layoutProblems(fine, src)).toEqual([]);
  });
});
