// `garuda setup` without a terminal: --show, --forget, --key-stdin, and the no-TTY refusal.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { garudaPaths } from "../../src/config/paths.ts";
import { tempDir } from "../support/tempDir.ts";
import { closedPortUrl, fakeKey, mockModelsApi, runPiped } from "../support/setupHarness.ts";

const GOOD = fakeKey("good");
const readJson = (path: string) => JSON.parse(readFileSync(path, "utf8"));

function seed(home: string, models: unknown, credentials?: Record<string, string>) {
  const paths = garudaPaths(home);
  mkdirSync(paths.dir, { recursive: true, mode: 0o700 });
  if (models !== undefined) writeFileSync(paths.models, JSON.stringify(models));
  if (credentials) writeFileSync(paths.credentials, JSON.stringify(credentials), { mode: 0o600 });
  return paths;
}

describe("garuda setup without a terminal", () => {
  test("is listed in --help", async () => {
    using home = tempDir();
    const run = await runPiped(["--help"], { home: home.path });
    expect(run.stdout).toMatch(/setup\s+Choose a model and enter its API key/);
  });

  test("no TTY and no --key-stdin: says to run it in a terminal, exit 1, writes nothing", async () => {
    using home = tempDir();
    const run = await runPiped(["setup"], { home: home.path, stdin: "" });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("needs a terminal. Run it in a terminal");
    expect(run.stderr).toContain("--key-stdin");
    expect(run.stdout).toBe("");
    expect(existsSync(garudaPaths(home.path).dir)).toBe(false);
  });

  test("--key-stdin with --model: checks the key, writes both files, prints the summary masked", async () => {
    using home = tempDir();
    using api = mockModelsApi([GOOD]);
    const paths = garudaPaths(home.path);
    const run = await runPiped(["setup", "--model", "claude-sonnet-5", "--key-stdin"], {
      home: home.path,
      stdin: `${GOOD}\nignored second line\n`,
      env: { ANTHROPIC_BASE_URL: api.url },
    });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`ANTHROPIC_API_KEY sk-ant-api03-…${GOOD.slice(-4)}, saved in ~/.garuda/credentials`);
    expect(run.stdout).not.toContain(GOOD);
    expect(api.requests).toHaveLength(1);
    expect(readJson(paths.models)).toEqual({ default: "claude-sonnet-5" });
    expect(readJson(paths.credentials)).toEqual({ ANTHROPIC_API_KEY: GOOD });
    expect(statSync(paths.credentials).mode & 0o777).toBe(0o600);
    expect(statSync(paths.dir).mode & 0o777).toBe(0o700);
  });

  test(
    "--key-stdin with a Claude model Garuda does not know: refused before stdin is " +
      "read, with the known ones (issue 20.2)",
    async () => {
      using home = tempDir();
      const run = await runPiped(["setup", "--model", "nope-model", "--key-stdin", "--no-check"], {
        home: home.path,
        stdin: `${GOOD}\n`,
      });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(
        'garuda setup: There is no model "nope-model" (from --model): the models Garuda ' +
          "knows are claude-opus-5, claude-sonnet-5",
      );
      expect(existsSync(garudaPaths(home.path).dir)).toBe(false);
      // Negative control: a known model is saved, with nothing on stderr.
      using other = tempDir();
      const known = await runPiped(["setup", "--model", "claude-sonnet-5", "--key-stdin", "--no-check"], {
        home: other.path,
        stdin: `${GOOD}\n`,
      });
      expect(known.stderr).toBe("");
      expect(known.code).toBe(0);
    },
  );

  test("--key-stdin: a refused key exits 1 and writes nothing; offline exits 1 unless --no-check", async () => {
    using home = tempDir();
    using api = mockModelsApi([GOOD]);
    const paths = garudaPaths(home.path);
    const refused = await runPiped(["setup", "--model", "claude-sonnet-5", "--key-stdin"], {
      home: home.path,
      stdin: "sk-wrong-0123456789abcdef\n",
      env: { ANTHROPIC_BASE_URL: api.url },
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("the key was refused (HTTP 401");
    expect(refused.stderr).not.toContain("sk-wrong-0123456789abcdef");
    expect(existsSync(paths.dir)).toBe(false);

    const offlineUrl = await closedPortUrl();
    const offline = await runPiped(["setup", "--model", "claude-sonnet-5", "--key-stdin"], {
      home: home.path,
      stdin: GOOD,
      env: { ANTHROPIC_BASE_URL: offlineUrl },
    });
    expect(offline.code).toBe(1);
    expect(offline.stderr).toContain("could not be checked");
    expect(offline.stderr).toContain("--no-check");
    expect(existsSync(paths.dir)).toBe(false);

    // No line end at all is fine too.
    const unchecked = await runPiped(["setup", "--model", "claude-sonnet-5", "--key-stdin", "--no-check"], {
      home: home.path,
      stdin: GOOD,
      env: { ANTHROPIC_BASE_URL: offlineUrl },
    });
    expect(unchecked.code).toBe(0);
    expect(unchecked.stdout).toContain("The key was not checked (--no-check).");
    expect(readJson(paths.credentials)).toEqual({ ANTHROPIC_API_KEY: GOOD });
  });

  test("--key-stdin: no model is a usage error (2); an empty or odd key is refused (1)", async () => {
    using home = tempDir();
    const paths = garudaPaths(home.path);
    const noModel = await runPiped(["setup", "--key-stdin", "--no-check"], { home: home.path, stdin: `${GOOD}\n` });
    expect(noModel.code).toBe(2);
    expect(noModel.stderr).toContain("--key-stdin needs --model");
    const empty = await runPiped(["setup", "--model", "claude-sonnet-5", "--key-stdin", "--no-check"], {
      home: home.path,
      stdin: "\n",
    });
    expect(empty.code).toBe(1);
    expect(empty.stderr).toContain("no key on stdin");
    const spaced = await runPiped(["setup", "--model", "claude-sonnet-5", "--key-stdin", "--no-check"], {
      home: home.path,
      stdin: "two words here\n",
    });
    expect(spaced.code).toBe(1);
    expect(spaced.stderr).toContain("does not look like a key");
    expect(existsSync(paths.dir)).toBe(false);
  });

  test(
    "--key-stdin keeps the other fields of models.json and the other keys; an " + "unknown provider is an error",
    async () => {
      using home = tempDir();
      const models = {
        default: "claude-opus-5",
        models: { "claude-sonnet-5": { maxTokens: 1000 } },
        providers: { gw: { type: "anthropic", apiKeyEnv: "GW_KEY" } },
      };
      const paths = seed(home.path, models, { GW_KEY: "gw-0123456789abcdef" });
      const run = await runPiped(["setup", "--model", "claude-sonnet-5", "--key-stdin", "--no-check"], {
        home: home.path,
        stdin: `${GOOD}\n`,
      });
      expect(run.code).toBe(0);
      expect(readJson(paths.models)).toEqual({ ...models, default: "claude-sonnet-5" });
      expect(readJson(paths.credentials)).toEqual({ GW_KEY: "gw-0123456789abcdef", ANTHROPIC_API_KEY: GOOD });

      const unknown = await runPiped(["setup", "--model", "nowhere/model", "--key-stdin", "--no-check"], {
        home: home.path,
        stdin: `${GOOD}\n`,
      });
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toContain('unknown provider "nowhere"');
      expect(readJson(paths.models)).toEqual({ ...models, default: "claude-sonnet-5" });
    },
  );

  test("a models.json that is valid JSON but not an object is named and never overwritten", async () => {
    using home = tempDir();
    const paths = seed(home.path, undefined);
    writeFileSync(paths.models, "[1, 2]");
    const run = await runPiped(["setup", "--model", "claude-sonnet-5", "--key-stdin", "--no-check"], {
      home: home.path,
      stdin: `${GOOD}\n`,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(paths.models);
    expect(readFileSync(paths.models, "utf8")).toBe("[1, 2]");
    expect(existsSync(paths.credentials)).toBe(false);
  });

  test("a credentials file others can read stops setup with its fix, and is not touched", async () => {
    using home = tempDir();
    const paths = seed(home.path, undefined);
    writeFileSync(paths.credentials, JSON.stringify({ OTHER: "x" }), { mode: 0o644 });
    const run = await runPiped(["setup", "--model", "claude-sonnet-5", "--key-stdin", "--no-check"], {
      home: home.path,
      stdin: `${GOOD}\n`,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`${paths.credentials}: can be read by other users (mode 644)`);
    expect(readJson(paths.credentials)).toEqual({ OTHER: "x" });
    expect(existsSync(paths.models)).toBe(false);
  });

  test("--show: the model and its source, each key's source, masked; no TTY needed", async () => {
    using home = tempDir();
    const fileKey = fakeKey("filekey");
    const envKey = fakeKey("envkey");
    seed(
      home.path,
      { default: "claude-opus-5", providers: { gw: { type: "anthropic", apiKeyEnv: "GW_KEY" } } },
      { ANTHROPIC_API_KEY: fileKey, GW_KEY: "gw-0123456789abcdef", SHORT: "tiny" },
    );

    const fromFile = await runPiped(["setup", "--show"], { home: home.path });
    expect(fromFile.code).toBe(0);
    expect(fromFile.stdout).toContain("Model:    claude-opus-5 (from the default in models.json)");
    expect(fromFile.stdout).toContain("Endpoint: https://api.anthropic.com");
    expect(fromFile.stdout).toMatch(
      new RegExp(`ANTHROPIC_API_KEY\\s+file  sk-ant-api03-…${fileKey.slice(-4)}  ← the model's key`),
    );
    expect(fromFile.stdout).toMatch(/ANTHROPIC_AUTH_TOKEN\s+missing/);
    expect(fromFile.stdout).toMatch(/GW_KEY\s+file {2}…cdef/);
    expect(fromFile.stdout).toMatch(/SHORT\s+file {2}••••/);
    expect(fromFile.stdout).not.toContain(fileKey);
    expect(fromFile.stdout).not.toContain("tiny");

    const fromEnv = await runPiped(["setup", "--show"], {
      home: home.path,
      env: { ANTHROPIC_API_KEY: envKey, GARUDA_MODEL: "claude-haiku-4-5", ANTHROPIC_BASE_URL: "http://127.0.0.1:9" },
    });
    expect(fromEnv.code).toBe(0);
    expect(fromEnv.stdout).toContain("Model:    claude-haiku-4-5 (from GARUDA_MODEL)");
    expect(fromEnv.stdout).toContain("Endpoint: http://127.0.0.1:9 (from ANTHROPIC_BASE_URL)");
    expect(fromEnv.stdout).toMatch(
      new RegExp(
        `ANTHROPIC_API_KEY\\s+env   sk-ant-api03-…${envKey.slice(-4)} \\(the file's ` +
          `sk-ant-api03-…${fileKey.slice(-4)} is not used\\)`,
      ),
    );
    expect(fromEnv.stdout).not.toContain(envKey);
    expect(fromEnv.stdout).not.toContain(fileKey);

    const flagged = await runPiped(["setup", "--show", "--model", "gw/claude-sonnet-5"], { home: home.path });
    expect(flagged.stdout).toContain("Model:    gw/claude-sonnet-5 (from --model)");
    expect(flagged.stdout).toMatch(/GW_KEY\s+file {2}…cdef {2}← the model's key/);
  });

  test("--show with nothing set up says so", async () => {
    using home = tempDir();
    const run = await runPiped(["setup", "--show"], { home: home.path });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Model:    none. Run `garuda setup`");
    expect(run.stdout).toMatch(/ANTHROPIC_API_KEY\s+missing/);
  });

  test("--forget without a terminal removes the key; the last key removes the file", async () => {
    using home = tempDir();
    const paths = seed(
      home.path,
      { default: "gw/claude-sonnet-5", providers: { gw: { type: "anthropic", apiKeyEnv: "GW_KEY" } } },
      { ANTHROPIC_API_KEY: GOOD, GW_KEY: "gw-0123456789abcdef" },
    );
    // No NAME: the key of the model in use.
    const first = await runPiped(["setup", "--forget"], { home: home.path });
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(`Removed GW_KEY from ${paths.credentials}.`);
    expect(readJson(paths.credentials)).toEqual({ ANTHROPIC_API_KEY: GOOD });
    expect(statSync(paths.credentials).mode & 0o777).toBe(0o600);

    const again = await runPiped(["setup", "--forget", "GW_KEY"], { home: home.path });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("GW_KEY is not in");

    const last = await runPiped(["setup", "--forget", "ANTHROPIC_API_KEY"], {
      home: home.path,
      env: { ANTHROPIC_API_KEY: "sk-env-0123456789abcdef" },
    });
    expect(last.code).toBe(0);
    expect(last.stdout).toContain("it was the last key, so the file is removed");
    expect(last.stdout).toContain("ANTHROPIC_API_KEY is still set in the environment");
    expect(existsSync(paths.credentials)).toBe(false);
    expect(readJson(paths.models).default).toBe("gw/claude-sonnet-5");
  });

  test("--forget without NAME removes what an editor's logout removes: the model's key and its token", async () => {
    using home = tempDir();
    const paths = seed(home.path, undefined, {
      ANTHROPIC_API_KEY: GOOD,
      ANTHROPIC_AUTH_TOKEN: "tok-0123456789abcdef",
      OPENAI_API_KEY: "sk-kept-0123456789",
    });
    const run = await runPiped(["setup", "--forget"], { home: home.path });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`Removed ANTHROPIC_API_KEY from ${paths.credentials}.`);
    expect(run.stdout).toContain(`Removed ANTHROPIC_AUTH_TOKEN from ${paths.credentials}.`);
    expect(readJson(paths.credentials)).toEqual({ OPENAI_API_KEY: "sk-kept-0123456789" });
    const again = await runPiped(["setup", "--forget"], { home: home.path });
    expect(again.stdout).toContain("ANTHROPIC_API_KEY is not in");
  });

  test("usage errors exit 2", async () => {
    using home = tempDir();
    const both = await runPiped(["setup", "--show", "--forget"], { home: home.path });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("--show and --forget do not go together");
    const stray = await runPiped(["setup", "ANTHROPIC_API_KEY"], { home: home.path });
    expect(stray.code).toBe(2);
    expect(stray.stderr).toContain("did you mean --forget ANTHROPIC_API_KEY?");
    const badName = await runPiped(["setup", "--forget", "not-a-name"], { home: home.path });
    expect(badName.code).toBe(1);
    expect(badName.stderr).toContain('"not-a-name" is not a key name');
  });
});
