// `garuda setup` in a real pseudo-terminal: menus by arrows and numbers, the hidden key,
// the check against a loopback mock of GET /v1/models, cancelling, and what lands on disk.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { garudaPaths } from "../../src/config/paths.ts";
import { tempDir } from "../support/tempDir.ts";
import { closedPortUrl, fakeKey, KEYS, mockModelsApi, PtyRun } from "../support/setupHarness.ts";

const GOOD = fakeKey("good");
const BAD = fakeKey("bad");
const mode = (path: string) => statSync(path).mode & 0o777;
const readJson = (path: string) => JSON.parse(readFileSync(path, "utf8"));

/** The provider menu comes first (there are always several): Enter takes the first, Anthropic. */
async function chooseAnthropic(run: PtyRun): Promise<void> {
  await run.waitFor("Choose a provider");
  await run.waitFor(/❯ 1\. anthropic/);
  run.send(KEYS.enter);
  await run.waitFor("Provider: anthropic");
}

/** No part of the key's secret middle ever reaches the screen. */
function expectHidden(run: PtyRun, key: string): void {
  expect(run.raw).not.toContain(key);
  expect(run.raw).not.toContain(key.slice(13, 40));
}

describe("garuda setup in a terminal", () => {
  test("arrows choose the model; the key is not echoed; both files are written with their modes", async () => {
    using home = tempDir();
    using api = mockModelsApi([GOOD]);
    const paths = garudaPaths(home.path);
    const run = new PtyRun(["setup"], { home: home.path, env: { ANTHROPIC_BASE_URL: api.url } });
    await chooseAnthropic(run);
    await run.waitFor("Choose a model");
    expect(run.text).toContain(
      "claude-sonnet-5    Claude Sonnet 5: speed and intelligence  1M context   $2/$10 per MTok",
    );
    run.send(KEYS.down);
    run.send(KEYS.down);
    run.send(KEYS.up);
    run.send(KEYS.down);
    await run.waitFor(/❯ 3\. claude-fable-5-1/);
    run.send(KEYS.enter);
    await run.waitFor("Model: claude-fable-5-1");
    await run.waitFor("Key: ");
    expect(existsSync(paths.dir)).toBe(false);
    run.send(`${GOOD}${KEYS.enter}`);
    await run.waitFor("The key works");
    await run.waitFor("Garuda is set up.");
    expect(await run.exit()).toBe(0);

    expectHidden(run, GOOD);
    expect(run.text).toContain("•".repeat(48));
    expect(run.text).toContain(`ANTHROPIC_API_KEY sk-ant-api03-…${GOOD.slice(-4)}, saved in ~/.garuda/credentials`);
    expect(readJson(paths.models)).toEqual({ default: "claude-fable-5-1" });
    expect(readJson(paths.credentials)).toEqual({ ANTHROPIC_API_KEY: GOOD });
    expect(mode(paths.credentials)).toBe(0o600);
    expect(mode(paths.dir)).toBe(0o700);
    // One check request, with the headers Anthropic's API takes.
    expect(api.requests).toHaveLength(1);
    expect(api.requests[0]).toMatchObject({ method: "GET", path: "/v1/models" });
    expect(api.requests[0]?.headers["x-api-key"]).toBe(GOOD);
    expect(api.requests[0]?.headers["anthropic-version"]).toBe("2023-06-01");
  });

  test("a number key moves to that model and Enter chooses it; Backspace edits the hidden key", async () => {
    using home = tempDir();
    using api = mockModelsApi([GOOD]);
    const paths = garudaPaths(home.path);
    const run = new PtyRun(["setup"], { home: home.path, env: { ANTHROPIC_BASE_URL: api.url } });
    await chooseAnthropic(run);
    await run.waitFor("Choose a model");
    run.send("4");
    await run.waitFor(/❯ 4\. claude-haiku-4-5/);
    run.send(KEYS.enter);
    await run.waitFor("Model: claude-haiku-4-5");
    await run.waitFor("Key: ");
    // A stray character, removed again before Enter.
    run.send(`${GOOD}#`);
    await run.waitFor(`(${GOOD.length + 1} characters)`);
    run.send(KEYS.backspace);
    await run.waitFor(`(${GOOD.length} characters)`);
    run.send(KEYS.enter);
    await run.waitFor("Garuda is set up.");
    expect(await run.exit()).toBe(0);
    expectHidden(run, GOOD);
    expect(readJson(paths.models)).toEqual({ default: "claude-haiku-4-5" });
    expect(readJson(paths.credentials)).toEqual({ ANTHROPIC_API_KEY: GOOD });
  });

  test("a refused key is asked for again; only the accepted one is saved", async () => {
    using home = tempDir();
    using api = mockModelsApi([GOOD]);
    const paths = garudaPaths(home.path);
    const run = new PtyRun(["setup", "--model", "claude-sonnet-5"], {
      home: home.path,
      env: { ANTHROPIC_BASE_URL: api.url },
    });
    await run.waitFor("Model: claude-sonnet-5 (from --model)");
    await run.waitFor("Key: ");
    run.send(`${BAD}${KEYS.enter}`);
    await run.waitFor("The key was refused (HTTP 401");
    expect(existsSync(paths.dir)).toBe(false);
    await run.waitFor("Key: ");
    run.send(`${GOOD}${KEYS.enter}`);
    await run.waitFor("Garuda is set up.");
    expect(await run.exit()).toBe(0);
    expectHidden(run, GOOD);
    expectHidden(run, BAD);
    expect(api.requests.map((request) => request.headers["x-api-key"])).toEqual([BAD, GOOD]);
    expect(readJson(paths.credentials)).toEqual({ ANTHROPIC_API_KEY: GOOD });
    expect(readJson(paths.models)).toEqual({ default: "claude-sonnet-5" });
  });

  test("offline: the key cannot be checked; 'no' asks again, 'yes' saves it", async () => {
    using home = tempDir();
    const paths = garudaPaths(home.path);
    const run = new PtyRun(["setup", "--model", "claude-opus-5"], {
      home: home.path,
      env: { ANTHROPIC_BASE_URL: await closedPortUrl() },
    });
    await run.waitFor("Key: ");
    run.send(`${BAD}${KEYS.enter}`);
    await run.waitFor("The key could not be checked");
    await run.waitFor("Are you offline?");
    await run.waitFor("Save it anyway? [y/N]");
    run.send("n");
    await run.waitFor("Key: ");
    expect(existsSync(paths.dir)).toBe(false);
    run.send(`${GOOD}${KEYS.enter}`);
    await run.waitFor("Save it anyway? [y/N]");
    run.send("y");
    await run.waitFor("Garuda is set up.");
    expect(await run.exit()).toBe(0);
    expect(run.text).toContain("The key could not be checked; if Garuda cannot reach the model");
    expectHidden(run, GOOD);
    expect(readJson(paths.credentials)).toEqual({ ANTHROPIC_API_KEY: GOOD });
    expect(readJson(paths.models)).toEqual({ default: "claude-opus-5" });
  });

  test("Ctrl-C at the key prompt exits 130 and writes nothing", async () => {
    using home = tempDir();
    using api = mockModelsApi([GOOD]);
    const paths = garudaPaths(home.path);
    const run = new PtyRun(["setup"], { home: home.path, env: { ANTHROPIC_BASE_URL: api.url } });
    await chooseAnthropic(run);
    await run.waitFor("Choose a model");
    run.send(`2${KEYS.enter}`);
    await run.waitFor("Key: ");
    run.send(GOOD.slice(0, 20));
    await run.waitFor(`Key: ${"•".repeat(20)}`);
    run.send(KEYS.ctrlC);
    await run.waitFor("Setup cancelled. Nothing was saved.");
    expect(await run.exit()).toBe(130);
    expect(existsSync(paths.dir)).toBe(false);
    expect(api.requests).toHaveLength(0);
    expectHidden(run, GOOD);
  });

  test("Ctrl-C in a menu exits 130 and leaves existing files untouched", async () => {
    using home = tempDir();
    const paths = garudaPaths(home.path);
    mkdirSync(paths.dir, { recursive: true, mode: 0o700 });
    const models = '{"default": "claude-opus-5"}\n';
    writeFileSync(paths.models, models);
    const run = new PtyRun(["setup"], { home: home.path });
    await chooseAnthropic(run);
    expect(run.text).toMatch(/❯ 1\. anthropic .*\(default\)/);
    await run.waitFor("Choose a model");
    // The current default is preselected and marked.
    await run.waitFor(/❯ 1\. claude-opus-5 .*\(default\)/);
    run.send(KEYS.down);
    await run.waitFor(/❯ 2\. claude-sonnet-5/);
    run.send(KEYS.ctrlC);
    await run.waitFor("Setup cancelled. Nothing was saved.");
    expect(await run.exit()).toBe(130);
    expect(readFileSync(paths.models, "utf8")).toBe(models);
    expect(existsSync(paths.credentials)).toBe(false);
  });

  test("a re-run keeps every other models.json field and every other key", async () => {
    using home = tempDir();
    using api = mockModelsApi([GOOD]);
    const paths = garudaPaths(home.path);
    mkdirSync(paths.dir, { recursive: true, mode: 0o700 });
    const existing = {
      providers: { gateway: { type: "anthropic", baseUrl: api.url, apiKeyEnv: "GATEWAY_KEY" } },
      models: { "gateway/claude-sonnet-5": { contextWindow: 500000, maxTokens: 32000 } },
      default: "gateway/claude-sonnet-5",
    };
    writeFileSync(paths.models, JSON.stringify(existing));
    writeFileSync(
      paths.credentials,
      JSON.stringify({ GATEWAY_KEY: "gw-key-0123456789abcdef", OTHER_KEY: "other-0123456789" }),
      { mode: 0o600 },
    );
    const run = new PtyRun(["setup"], { home: home.path, env: { ANTHROPIC_BASE_URL: api.url } });
    // Two providers now: the menu starts on the current one.
    await run.waitFor("Choose a provider");
    await run.waitFor(/❯ 7\. gateway .*key GATEWAY_KEY\s+\(default\)/);
    // The menu shows the endpoint setup checks and Garuda calls: ANTHROPIC_BASE_URL, not api.anthropic.com.
    expect(run.text).toContain(`anthropic   ${api.url} (ANTHROPIC_BASE_URL)`);
    expect(run.text).not.toContain("https://api.anthropic.com");
    run.send(`1${KEYS.enter}`);
    await run.waitFor("Provider: anthropic");
    await run.waitFor("Choose a model");
    run.send(`2${KEYS.enter}`);
    await run.waitFor("Key: ");
    run.send(`${GOOD}${KEYS.enter}`);
    await run.waitFor("Garuda is set up.");
    expect(await run.exit()).toBe(0);
    expect(readJson(paths.models)).toEqual({ ...existing, default: "claude-sonnet-5" });
    expect(readJson(paths.credentials)).toEqual({
      GATEWAY_KEY: "gw-key-0123456789abcdef",
      OTHER_KEY: "other-0123456789",
      ANTHROPIC_API_KEY: GOOD,
    });
    expect(mode(paths.credentials)).toBe(0o600);
  });

  test("a key already saved can be kept: only the model changes, and the check uses it", async () => {
    using home = tempDir();
    using api = mockModelsApi([GOOD]);
    const paths = garudaPaths(home.path);
    mkdirSync(paths.dir, { recursive: true, mode: 0o700 });
    writeFileSync(paths.models, JSON.stringify({ default: "claude-opus-5" }));
    const credentials = `${JSON.stringify({ ANTHROPIC_API_KEY: GOOD })}\n`;
    writeFileSync(paths.credentials, credentials, { mode: 0o600 });
    const before = statSync(paths.credentials);
    const run = new PtyRun(["setup"], { home: home.path, env: { ANTHROPIC_BASE_URL: api.url } });
    await chooseAnthropic(run);
    await run.waitFor("Choose a model");
    run.send(`${KEYS.down}${KEYS.enter}`);
    await run.waitFor("Model: claude-sonnet-5");
    await run.waitFor(`Keep the key from ~/.garuda/credentials (ANTHROPIC_API_KEY): sk-ant-api03-…${GOOD.slice(-4)}`);
    run.send(KEYS.enter);
    await run.waitFor("Garuda is set up.");
    expect(await run.exit()).toBe(0);
    expectHidden(run, GOOD);
    expect(run.text).toContain("(kept as it is)");
    expect(readJson(paths.models)).toEqual({ default: "claude-sonnet-5" });
    expect(readFileSync(paths.credentials, "utf8")).toBe(credentials);
    expect(statSync(paths.credentials).ino).toBe(before.ino);
    expect(api.requests.map((request) => request.headers["x-api-key"])).toEqual([GOOD]);
  });

  test(
    "a key in the environment is offered masked; choosing a new one saves it and " + "warns that the environment wins",
    async () => {
      using home = tempDir();
      using api = mockModelsApi([GOOD]);
      const paths = garudaPaths(home.path);
      const envKey = fakeKey("envkey");
      const run = new PtyRun(["setup", "--model", "claude-sonnet-5"], {
        home: home.path,
        env: { ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: envKey },
      });
      await run.waitFor(`Keep the key from the environment (ANTHROPIC_API_KEY): sk-ant-api03-…${envKey.slice(-4)}`);
      run.send(`2${KEYS.enter}`);
      await run.waitFor("Key: ");
      run.send(`${GOOD}${KEYS.enter}`);
      await run.waitFor("Garuda is set up.");
      expect(await run.exit()).toBe(0);
      expectHidden(run, GOOD);
      expectHidden(run, envKey);
      expect(run.text).toContain("ANTHROPIC_API_KEY is also set in this environment, and that value wins");
      expect(readJson(paths.credentials)).toEqual({ ANTHROPIC_API_KEY: GOOD });
    },
  );

  test("an auth token in the environment is checked as a Bearer token and kept, not written", async () => {
    using home = tempDir();
    using api = mockModelsApi([GOOD]);
    const paths = garudaPaths(home.path);
    // An editor entry's empty ANTHROPIC_API_KEY counts as unset.
    const run = new PtyRun(["setup", "--model", "claude-sonnet-5"], {
      home: home.path,
      env: { ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: "", ANTHROPIC_AUTH_TOKEN: GOOD },
    });
    await run.waitFor("Keep the key from the environment (ANTHROPIC_AUTH_TOKEN)");
    run.send(KEYS.enter);
    await run.waitFor("Garuda is set up.");
    expect(await run.exit()).toBe(0);
    expect(api.requests[0]?.headers.authorization).toBe(`Bearer ${GOOD}`);
    expect(api.requests[0]?.headers["x-api-key"]).toBeUndefined();
    expect(existsSync(paths.credentials)).toBe(false);
    expect(readJson(paths.models)).toEqual({ default: "claude-sonnet-5" });
  });

  test("a provider from models.json: its models, its key name, its endpoint", async () => {
    using home = tempDir();
    using api = mockModelsApi(["gw-key-0123456789abcdef"]);
    const paths = garudaPaths(home.path);
    mkdirSync(paths.dir, { recursive: true, mode: 0o700 });
    const existing = {
      providers: { gateway: { type: "anthropic", baseUrl: `${api.url}/`, apiKeyEnv: "GATEWAY_KEY" } },
    };
    writeFileSync(paths.models, JSON.stringify(existing));
    const run = new PtyRun(["setup"], { home: home.path });
    await run.waitFor("Choose a provider");
    run.send(`7${KEYS.enter}`);
    await run.waitFor("Provider: gateway");
    // It lists no models of its own, so it is offered the Claude models under its name.
    await run.waitFor("Choose a model");
    await run.waitFor("gateway/claude-haiku-4-5");
    run.send(`4${KEYS.enter}`);
    await run.waitFor("Model: gateway/claude-haiku-4-5");
    await run.waitFor("saved as GATEWAY_KEY");
    await run.waitFor("Key: ");
    // Enter on nothing asks again.
    run.send(KEYS.enter);
    await run.waitFor("No key was entered. Paste it again");
    await run.waitFor("Key: ");
    run.send(`gw-key-0123456789abcdef${KEYS.enter}`);
    await run.waitFor("Garuda is set up.");
    expect(await run.exit()).toBe(0);
    expect(api.requests).toHaveLength(1);
    expect(api.requests[0]?.path).toBe("/v1/models");
    expect(run.text).toContain("GATEWAY_KEY …cdef, saved in ~/.garuda/credentials");
    expect(run.raw).not.toContain("gw-key-0123456789abcdef");
    expect(readJson(paths.models)).toEqual({ ...existing, default: "gateway/claude-haiku-4-5" });
    expect(readJson(paths.credentials)).toEqual({ GATEWAY_KEY: "gw-key-0123456789abcdef" });
  });

  test("a long model list in a short terminal scrolls; two digits reach item 12", async () => {
    using home = tempDir();
    using api = mockModelsApi(["gw-key-0123456789abcdef"]);
    const paths = garudaPaths(home.path);
    mkdirSync(paths.dir, { recursive: true, mode: 0o700 });
    const models = Object.fromEntries(
      Array.from({ length: 14 }, (_, i) => [`gw/model-${i + 1}`, { label: `Model number ${i + 1}` }]),
    );
    writeFileSync(
      paths.models,
      JSON.stringify({ providers: { gw: { type: "anthropic", baseUrl: api.url, apiKeyEnv: "GW_KEY" } }, models }),
    );
    const run = new PtyRun(["setup"], { home: home.path, rows: 10, cols: 60 });
    await run.waitFor("Choose a provider");
    run.send(`7${KEYS.enter}`);
    await run.waitFor("Choose a model");
    await run.waitFor("more below");
    run.send("12");
    await run.waitFor(/❯ 12\. gw\/model-12/);
    run.send(KEYS.enter);
    await run.waitFor("Model: gw/model-12 (Model number 12)");
    await run.waitFor("Key: ");
    run.send(`gw-key-0123456789abcdef${KEYS.enter}`);
    await run.waitFor("Garuda is set up.");
    expect(await run.exit()).toBe(0);
    expect(readJson(paths.models).default).toBe("gw/model-12");
    expect(readJson(paths.credentials)).toEqual({ GW_KEY: "gw-key-0123456789abcdef" });
  });

  test("Ctrl-C while the check waits for an answer stops at once and writes nothing", async () => {
    using home = tempDir();
    const paths = garudaPaths(home.path);
    const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Promise<Response>(() => {}) });
    try {
      const run = new PtyRun(["setup", "--model", "claude-sonnet-5"], {
        home: home.path,
        env: { ANTHROPIC_BASE_URL: `http://127.0.0.1:${server.port}` },
      });
      await run.waitFor("Key: ");
      run.send(`${GOOD}${KEYS.enter}`);
      await run.waitFor("Checking the key with");
      run.send(KEYS.ctrlC);
      await run.waitFor("Setup cancelled. Nothing was saved.");
      expect(await run.exit()).toBe(130);
      expect(existsSync(paths.dir)).toBe(false);
    } finally {
      await server.stop(true);
    }
  });

  test("--key-stdin from a terminal reads the key hidden, not as an echoed line", async () => {
    using home = tempDir();
    const paths = garudaPaths(home.path);
    const run = new PtyRun(["setup", "--model", "claude-sonnet-5", "--key-stdin", "--no-check"], { home: home.path });
    await run.waitFor("Key: ");
    run.send(`${GOOD}${KEYS.enter}`);
    await run.waitFor("Garuda is set up.");
    expect(await run.exit()).toBe(0);
    expectHidden(run, GOOD);
    expect(readJson(paths.credentials)).toEqual({ ANTHROPIC_API_KEY: GOOD });
  });

  test("--no-check saves without any request", async () => {
    using home = tempDir();
    using api = mockModelsApi([]);
    const paths = garudaPaths(home.path);
    const run = new PtyRun(["setup", "--model", "claude-haiku-4-5", "--no-check"], {
      home: home.path,
      env: { ANTHROPIC_BASE_URL: api.url },
    });
    await run.waitFor("Key: ");
    run.send(`${BAD}${KEYS.enter}`);
    await run.waitFor("Garuda is set up.");
    expect(await run.exit()).toBe(0);
    expect(run.text).toContain("The key was not checked (--no-check).");
    expect(api.requests).toHaveLength(0);
    expect(readJson(paths.credentials)).toEqual({ ANTHROPIC_API_KEY: BAD });
  });

  test("a malformed models.json stops setup before any question and is not overwritten", async () => {
    using home = tempDir();
    const paths = garudaPaths(home.path);
    mkdirSync(paths.dir, { recursive: true });
    writeFileSync(paths.models, '{"default": "claude-sonnet-5",');
    const run = new PtyRun(["setup"], { home: home.path });
    await run.waitFor(`${paths.models}: is not valid JSON`);
    expect(await run.exit()).toBe(1);
    expect(run.text).not.toContain("Choose a model");
    expect(readFileSync(paths.models, "utf8")).toBe('{"default": "claude-sonnet-5",');
    expect(existsSync(paths.credentials)).toBe(false);
  });

  test("--forget asks in a terminal: 'n' keeps the key, 'y' removes it", async () => {
    using home = tempDir();
    const paths = garudaPaths(home.path);
    mkdirSync(paths.dir, { recursive: true, mode: 0o700 });
    writeFileSync(paths.credentials, JSON.stringify({ ANTHROPIC_API_KEY: GOOD, OTHER_KEY: "other-0123456789" }), {
      mode: 0o600,
    });
    const no = new PtyRun(["setup", "--forget"], { home: home.path });
    await no.waitFor(`Remove ANTHROPIC_API_KEY (sk-ant-api03-…${GOOD.slice(-4)}) from ${paths.credentials}? [y/N]`);
    no.send("n");
    await no.waitFor("Nothing was removed.");
    expect(await no.exit()).toBe(0);
    expect(readJson(paths.credentials)).toEqual({ ANTHROPIC_API_KEY: GOOD, OTHER_KEY: "other-0123456789" });

    const yes = new PtyRun(["setup", "--forget", "ANTHROPIC_API_KEY"], { home: home.path });
    await yes.waitFor("[y/N]");
    yes.send("y");
    await yes.waitFor(`Removed ANTHROPIC_API_KEY from ${paths.credentials}.`);
    expect(await yes.exit()).toBe(0);
    expectHidden(yes, GOOD);
    expect(readJson(paths.credentials)).toEqual({ OTHER_KEY: "other-0123456789" });
    expect(mode(paths.credentials)).toBe(0o600);
  });
});
