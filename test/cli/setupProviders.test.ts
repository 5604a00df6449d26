// `garuda setup` with the OpenAI-compatible providers: a local server's own model list and no
// key, the message when the server is not running, the script path for a keyless model, and
// OpenRouter's list (limits and prices kept in models.json) with its key checked at GET /key.
// Each provider's base URL points at a loopback mock through models.json.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { garudaPaths } from "../../src/config/paths.ts";
import { startMockOpenAI } from "../support/mockOpenAI.ts";
import { tempDir } from "../support/tempDir.ts";
import { closedPortUrl, KEYS, PtyRun, runPiped } from "../support/setupHarness.ts";

const readJson = (path: string) => JSON.parse(readFileSync(path, "utf8"));

function seed(home: string, models: unknown) {
  const paths = garudaPaths(home);
  mkdirSync(paths.dir, { recursive: true, mode: 0o700 });
  writeFileSync(paths.models, JSON.stringify(models));
  return paths;
}

describe("garuda setup with a local server", () => {
  test(
    "the provider menu offers the local servers; Ollama's models come from the " + "server; no key is asked",
    async () => {
      using home = tempDir();
      await using ollama = startMockOpenAI({ models: ["qwen3:8b", "llama3.2:3b", "gemma3:4b"] });
      const existing = { providers: { ollama: { baseUrl: ollama.url } } };
      const paths = seed(home.path, existing);
      const run = new PtyRun(["setup"], { home: home.path });
      await run.waitFor("Choose a provider");
      await run.waitFor(`3. ollama      ${ollama.url}`);
      expect(run.text).toMatch(/2\. openrouter\s+https:\/\/openrouter\.ai\/api\/v1\s+key OPENROUTER_API_KEY/);
      expect(run.text).toMatch(/4\. lmstudio\s+http:\/\/127\.0\.0\.1:1234\/v1\s+no key/);
      expect(run.text).toMatch(/5\. llamacpp\s+http:\/\/127\.0\.0\.1:8080\/v1\s+no key/);
      expect(run.text).toMatch(/6\. vllm\s+http:\/\/127\.0\.0\.1:8000\/v1\s+no key/);
      run.send(`3${KEYS.enter}`);
      await run.waitFor("Provider: ollama");
      await run.waitFor("Choose a model");
      await run.waitFor(/ollama\/qwen3:8b\s+33K context\s+free/);
      run.send(`2${KEYS.enter}`);
      await run.waitFor("Model: ollama/llama3.2:3b");
      await run.waitFor("Garuda is set up.");
      expect(await run.exit()).toBe(0);
      expect(run.text).not.toContain("Paste the API key");
      expect(run.text).toContain(`Key:   none needed (Ollama at ${ollama.origin})`);
      expect(run.text).toContain('Limits: 33K context, 4K output; change them under "models" in ~/.garuda/models.json');
      expect(readJson(paths.models)).toEqual({ ...existing, default: "ollama/llama3.2:3b" });
      expect(existsSync(paths.credentials)).toBe(false);
      expect(ollama.requests.map((request) => `${request.method} ${request.path}`)).toEqual(["GET /v1/models"]);
      expect(ollama.requests[0]?.headers.authorization).toBeUndefined();
    },
  );

  test("a server that is not running is named with how to start it, and the provider menu comes back", async () => {
    using home = tempDir();
    const closed = await closedPortUrl();
    const paths = seed(home.path, { providers: { ollama: { baseUrl: `${closed}/v1` } } });
    const run = new PtyRun(["setup"], { home: home.path });
    await run.waitFor("Choose a provider");
    run.send(`3${KEYS.enter}`);
    await run.waitFor(`Ollama is not running at ${closed} — start it with \`ollama serve\`.`);
    await run.waitFor("Choose another provider, or start the server and choose it again.");
    await run.waitFor("Choose a provider");
    // The menu starts on the provider just tried.
    await run.waitFor(/❯ 3\. ollama/);
    run.send(KEYS.ctrlC);
    await run.waitFor("Setup cancelled. Nothing was saved.");
    expect(await run.exit()).toBe(130);
    expect(readJson(paths.models)).toEqual({ providers: { ollama: { baseUrl: `${closed}/v1` } } });
  });

  test("a server with no models says so", async () => {
    using home = tempDir();
    await using lmstudio = startMockOpenAI({ models: [] });
    seed(home.path, { providers: { lmstudio: { baseUrl: lmstudio.url } } });
    const run = new PtyRun(["setup"], { home: home.path });
    await run.waitFor("Choose a provider");
    run.send(`4${KEYS.enter}`);
    await run.waitFor(`LM Studio at ${lmstudio.origin} has no models yet.`);
    await run.waitFor("Choose a provider");
    run.send(KEYS.ctrlC);
    expect(await run.exit()).toBe(130);
  });

  test("at most 50 of a long list are offered, with how to name another", async () => {
    using home = tempDir();
    await using vllm = startMockOpenAI({
      models: Array.from({ length: 60 }, (_, i) => ({ id: `org/model-${i + 1}`, max_model_len: 65536 })),
    });
    const paths = seed(home.path, { providers: { vllm: { baseUrl: vllm.url } } });
    const run = new PtyRun(["setup"], { home: home.path, rows: 20 });
    await run.waitFor("Choose a provider");
    run.send(`6${KEYS.enter}`);
    await run.waitFor(
      "vLLM lists 60 models; the first 50 are shown. For another one: garuda setup --model vllm/<model>",
    );
    await run.waitFor("Choose a model");
    run.send("50");
    await run.waitFor(/❯ 50\. vllm\/org\/model-50/);
    run.send(KEYS.enter);
    await run.waitFor("Garuda is set up.");
    expect(await run.exit()).toBe(0);
    expect(run.text).not.toContain("model-51");
    // The limits the server reported are kept for next time.
    expect(readJson(paths.models).models).toEqual({ "vllm/org/model-50": { contextWindow: 65536, maxTokens: 16384 } });
  });

  test("--model for a keyless provider needs no terminal: the server is checked, then the model saved", async () => {
    using home = tempDir();
    await using ollama = startMockOpenAI({ models: ["qwen3:8b"] });
    const paths = seed(home.path, { providers: { ollama: { baseUrl: ollama.url } } });

    const missing = await runPiped(["setup", "--model", "ollama/nope"], { home: home.path });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(
      `Ollama at ${ollama.origin} does not list the model "nope" (it has: qwen3:8b). ` +
        `Nothing was saved. To save it without checking, add --no-check.`,
    );
    expect(readJson(paths.models).default).toBeUndefined();

    const saved = await runPiped(["setup", "--model", "ollama/qwen3:8b"], { home: home.path, stdin: "" });
    expect(saved.stderr).toBe("");
    expect(saved.code).toBe(0);
    expect(saved.stdout).toContain("Model: ollama/qwen3:8b, the default in ~/.garuda/models.json");
    expect(saved.stdout).toContain(`Key:   none needed (Ollama at ${ollama.origin})`);
    expect(readJson(paths.models).default).toBe("ollama/qwen3:8b");
    expect(existsSync(paths.credentials)).toBe(false);

    // --key-stdin with a keyless model reads nothing and works the same.
    const viaStdin = await runPiped(["setup", "--model", "ollama/qwen3:8b", "--key-stdin"], {
      home: home.path,
      stdin: "not a key\n",
    });
    expect(viaStdin.code).toBe(0);
    expect(viaStdin.stdout).toContain("(unchanged)");
    expect(existsSync(paths.credentials)).toBe(false);
  });

  test("--model for a server that is not running: the message, exit 1; --no-check saves it anyway", async () => {
    using home = tempDir();
    const closed = await closedPortUrl();
    const paths = seed(home.path, { providers: { llamacpp: { baseUrl: `${closed}/v1` } } });
    const down = await runPiped(["setup", "--model", "llamacpp/qwen"], { home: home.path });
    expect(down.code).toBe(1);
    expect(down.stderr).toContain(
      `llama.cpp is not running at ${closed} — start it with \`llama-server -m ` +
        `<model.gguf> --jinja\`. Nothing was saved.`,
    );
    const unchecked = await runPiped(["setup", "--model", "llamacpp/qwen", "--no-check"], { home: home.path });
    expect(unchecked.code).toBe(0);
    expect(unchecked.stdout).toContain("The server was not checked (--no-check).");
    expect(readJson(paths.models).default).toBe("llamacpp/qwen");
  });

  test("--model in a terminal for a server that is not running asks before saving", async () => {
    using home = tempDir();
    const closed = await closedPortUrl();
    const paths = seed(home.path, { providers: { ollama: { baseUrl: `${closed}/v1` } } });
    const run = new PtyRun(["setup", "--model", "ollama/qwen3:8b"], { home: home.path });
    await run.waitFor("Model: ollama/qwen3:8b (from --model)");
    await run.waitFor(`Ollama is not running at ${closed} — start it with \`ollama serve\`.`);
    await run.waitFor("Save it anyway? [y/N]");
    run.send("y");
    await run.waitFor("Garuda is set up.");
    expect(await run.exit()).toBe(0);
    expect(run.text).toContain("The server could not be checked; start it before you use Garuda.");
    expect(readJson(paths.models).default).toBe("ollama/qwen3:8b");
  });

  test("--show says a keyless model needs no key", async () => {
    using home = tempDir();
    seed(home.path, { default: "ollama/qwen3:8b" });
    const run = await runPiped(["setup", "--show"], { home: home.path });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Model:    ollama/qwen3:8b (from the default in models.json)");
    expect(run.stdout).toContain("Endpoint: http://127.0.0.1:11434/v1");
    expect(run.stdout).toContain("Key:      none needed (a local server)");
  });
});

describe("garuda setup with OpenRouter", () => {
  test("its models come from its list with their limits and prices; the key is checked at GET /key", async () => {
    using home = tempDir();
    const key = "sk-or-v1-0123456789abcdef0123456789abcdef";
    await using openrouter = startMockOpenAI({
      models: [
        {
          id: "anthropic/claude-sonnet-5",
          name: "Anthropic: Claude Sonnet 5",
          context_length: 1_000_000,
          pricing: { prompt: "0.000002", completion: "0.00001" },
          top_provider: { max_completion_tokens: 128_000 },
        },
        {
          id: "qwen/qwen3-coder:free",
          name: "Qwen: Qwen3 Coder (free)",
          context_length: 262_144,
          pricing: { prompt: "0", completion: "0" },
          top_provider: { max_completion_tokens: null },
        },
      ],
    });
    const existing = { providers: { openrouter: { baseUrl: openrouter.url } } };
    const paths = seed(home.path, existing);
    const run = new PtyRun(["setup"], { home: home.path });
    await run.waitFor("Choose a provider");
    run.send(`2${KEYS.enter}`);
    await run.waitFor("Choose a model");
    await run.waitFor(
      /openrouter\/anthropic\/claude-sonnet-5\s+Anthropic: Claude Sonnet 5\s+1M context\s+\$2\/\$10 per MTok/,
    );
    run.send(`1${KEYS.enter}`);
    await run.waitFor("Model: openrouter/anthropic/claude-sonnet-5 (Anthropic: Claude Sonnet 5)");
    await run.waitFor("saved as OPENROUTER_API_KEY");
    await run.waitFor("Key: ");
    run.send(`${key}${KEYS.enter}`);
    await run.waitFor("The key works");
    await run.waitFor("Garuda is set up.");
    expect(await run.exit()).toBe(0);
    expect(run.raw).not.toContain(key);
    expect(readJson(paths.credentials)).toEqual({ OPENROUTER_API_KEY: key });
    expect(readJson(paths.models)).toEqual({
      ...existing,
      default: "openrouter/anthropic/claude-sonnet-5",
      models: {
        "openrouter/anthropic/claude-sonnet-5": {
          contextWindow: 1_000_000,
          maxTokens: 128_000,
          price: { input: 2, output: 10, cacheRead: 2, cacheWrite: 2 },
        },
      },
    });
    expect(openrouter.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
      "GET /v1/models",
      "GET /v1/key",
    ]);
    expect(openrouter.requests[1]?.headers.authorization).toBe(`Bearer ${key}`);
  });
});
