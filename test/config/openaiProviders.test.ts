// The OpenAI-compatible providers in the configuration: the built-in local servers (keyless,
// free) and OpenRouter (its key), models.json's `openai-compatible` entries, the base URL
// rules, per-model limits and textToolCalls, and what prepareModel decides for each.
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { writeCredentials } from "../../src/config/credentials.ts";
import { ConfigError, SetupRequiredError } from "../../src/errors/configError.ts";
import { type ModelSetupContext, prepareModel } from "../../src/config/modelSetup.ts";
import { findModel, loadModelCatalog } from "../../src/config/modelsFile.ts";
import { garudaPaths } from "../../src/config/paths.ts";
import { BUILTIN_KEY_NAMES, keepProviderKeys } from "../../src/config/providerKeys.ts";
import { BUILTIN_PROVIDERS, notRunningMessage } from "../../src/model/catalog.ts";
import { tempDir } from "../support/tempDir.ts";

function catalogOf(models: unknown) {
  using home = tempDir();
  const paths = garudaPaths(home.path);
  if (models !== undefined) {
    mkdirSync(paths.dir, { recursive: true });
    writeFileSync(paths.models, JSON.stringify(models));
  }
  return loadModelCatalog(paths.models);
}

function configError(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error("expected a ConfigError");
}

function setup(
  home: string,
  env: Record<string, string | undefined>,
  options: { models?: object; credentials?: Record<string, string> } = {},
): ModelSetupContext {
  const paths = garudaPaths(home);
  if (options.models) {
    mkdirSync(paths.dir, { recursive: true });
    writeFileSync(paths.models, JSON.stringify(options.models));
  }
  if (options.credentials) writeCredentials(paths.credentials, options.credentials);
  return { paths, env, keys: keepProviderKeys(env) };
}

describe("built-in providers", () => {
  test("the local servers are keyless on this machine; OpenRouter takes OPENROUTER_API_KEY", () => {
    const local = (name: string, port: number) => ({
      name,
      type: "openai-compatible",
      baseUrl: `http://127.0.0.1:${port}/v1`,
    });
    expect(BUILTIN_PROVIDERS.ollama).toMatchObject(local("ollama", 11434));
    expect(BUILTIN_PROVIDERS.lmstudio).toMatchObject(local("lmstudio", 1234));
    expect(BUILTIN_PROVIDERS.llamacpp).toMatchObject(local("llamacpp", 8080));
    expect(BUILTIN_PROVIDERS.vllm).toMatchObject(local("vllm", 8000));
    for (const name of ["ollama", "lmstudio", "llamacpp", "vllm"])
      expect(BUILTIN_PROVIDERS[name]?.apiKeyEnv).toBeUndefined();
    expect(BUILTIN_PROVIDERS.openrouter).toMatchObject({
      type: "openai-compatible",
      baseUrl: "https://openrouter.ai/api/v1",
      apiKeyEnv: "OPENROUTER_API_KEY",
    });
    expect(BUILTIN_KEY_NAMES).toEqual(["ANTHROPIC_API_KEY", "OPENROUTER_API_KEY", "ANTHROPIC_AUTH_TOKEN"]);
  });

  test(
    "a local model nobody listed: 32,768 context, 4,096 output, free; an OpenRouter " +
      "one: the same limits, price unknown",
    () => {
      const catalog = catalogOf(undefined);
      expect(findModel(catalog, "ollama/qwen3:8b")).toEqual({
        spec: "ollama/qwen3:8b",
        provider: "ollama",
        id: "qwen3:8b",
        contextWindow: 32_768,
        maxTokens: 4_096,
        price: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
        thinking: "none",
      });
      expect(findModel(catalog, "openrouter/qwen/qwen3-coder")).toMatchObject({
        provider: "openrouter",
        id: "qwen/qwen3-coder",
        contextWindow: 32_768,
        maxTokens: 4_096,
        price: null,
      });
      // A bare Claude id still means Anthropic, with Claude's limits.
      expect(findModel(catalog, "claude-next")).toMatchObject({
        provider: "anthropic",
        contextWindow: 200_000,
        maxTokens: 32_000,
      });
    },
  );

  test("the not-running message names the server and how to start it", () => {
    expect(notRunningMessage(BUILTIN_PROVIDERS.ollama as never, "http://127.0.0.1:11434/v1")).toBe(
      "Ollama is not running at http://127.0.0.1:11434 — start it with `ollama serve`.",
    );
    expect(notRunningMessage({ name: "box" }, "http://127.0.0.1:9000/v1/")).toBe(
      'Nothing answers at http://127.0.0.1:9000: start the server, or fix "baseUrl" ' +
        'of the provider "box" in ~/.garuda/models.json.',
    );
  });
});

describe("models.json", () => {
  test(
    "an openai-compatible provider: keyless without apiKeyEnv, its models with " + "their limits and textToolCalls",
    () => {
      const catalog = catalogOf({
        providers: {
          box: { type: "openai-compatible", baseUrl: "http://localhost:9000/v1/" },
          together: {
            type: "openai-compatible",
            baseUrl: "https://api.together.xyz/v1",
            apiKeyEnv: "TOGETHER_API_KEY",
          },
        },
        models: {
          "box/tiny": { contextWindow: 8192, maxTokens: 1024, textToolCalls: true },
          "ollama/qwen3:32b": { contextWindow: 40_960, maxTokens: 8192 },
          "together/deepseek-ai/DeepSeek-V3": { price: { input: 1.25, output: 1.25 } },
        },
      });
      expect(catalog.providers.box).toEqual({
        name: "box",
        type: "openai-compatible",
        baseUrl: "http://localhost:9000/v1",
      });
      expect(catalog.providers.together?.apiKeyEnv).toBe("TOGETHER_API_KEY");
      expect(findModel(catalog, "box/tiny")).toMatchObject({
        contextWindow: 8192,
        maxTokens: 1024,
        textToolCalls: true,
        price: { input: 0, output: 0 },
      });
      expect(findModel(catalog, "ollama/qwen3:32b")).toMatchObject({ contextWindow: 40_960, maxTokens: 8192 });
      expect(findModel(catalog, "ollama/qwen3:32b").textToolCalls).toBeUndefined();
      expect(findModel(catalog, "together/deepseek-ai/DeepSeek-V3")).toMatchObject({
        id: "deepseek-ai/DeepSeek-V3",
        contextWindow: 32_768,
        price: { input: 1.25, output: 1.25, cacheRead: 0, cacheWrite: 0 },
      });
    },
  );

  test("a built-in provider's base URL can be changed alone; it stays what it was", () => {
    const catalog = catalogOf({
      providers: {
        ollama: { baseUrl: "http://127.0.0.1:5555/v1" },
        openrouter: { baseUrl: "https://gateway.example.com/openrouter/v1" },
      },
    });
    expect(catalog.providers.ollama).toMatchObject({
      type: "openai-compatible",
      baseUrl: "http://127.0.0.1:5555/v1",
      title: "Ollama",
      startHint: "start it with `ollama serve`",
    });
    expect(catalog.providers.ollama?.apiKeyEnv).toBeUndefined();
    expect(catalog.providers.openrouter).toMatchObject({
      baseUrl: "https://gateway.example.com/openrouter/v1",
      apiKeyEnv: "OPENROUTER_API_KEY",
    });
  });

  test("plain http only to this machine unless allowInsecureHttp; never a user:password", () => {
    const box = (entry: object) => ({ providers: { box: { type: "openai-compatible", ...entry } } });
    expect(configError(() => catalogOf(box({ baseUrl: "http://192.168.1.20:8000/v1" }))).message).toContain(
      "plain http:// is only allowed to this machine, not to 192.168.1.20",
    );
    expect(
      catalogOf(box({ baseUrl: "http://192.168.1.20:8000/v1", allowInsecureHttp: true })).providers.box,
    ).toMatchObject({ baseUrl: "http://192.168.1.20:8000/v1", allowInsecureHttp: true });
    for (const baseUrl of ["http://[::1]:8000/v1", "http://127.0.0.2:8000/v1", "http://gpu.localhost/v1"])
      expect(catalogOf(box({ baseUrl })).providers.box?.baseUrl).toBe(baseUrl);
    const secret = configError(() => catalogOf(box({ baseUrl: "https://me:hunter2@llm.example.com/v1" }))).message;
    expect(secret).toContain("must not contain a user name or password");
    expect(secret).not.toContain("hunter2");
  });

  test(
    "what an entry must have: a type for a new provider, a base URL for " + "openai-compatible, a key for anthropic",
    () => {
      expect(
        configError(() => catalogOf({ providers: { box: { baseUrl: "http://127.0.0.1:1/v1" } } })).message,
      ).toContain('provider "box" needs "type"');
      expect(configError(() => catalogOf({ providers: { box: { type: "openai-compatible" } } })).message).toContain(
        'provider "box" needs "baseUrl"',
      );
      expect(
        configError(() => catalogOf({ providers: { gw: { type: "anthropic", baseUrl: "https://gw.example.com" } } }))
          .message,
      ).toContain('provider "gw" needs "apiKeyEnv"');
      expect(
        configError(() => catalogOf({ providers: { box: { type: "openai", baseUrl: "http://127.0.0.1:1/v1" } } }))
          .message,
      ).toContain("providers.box.type");
      expect(configError(() => catalogOf({ models: { "box/x": { textToolCalls: "yes" } } })).message).toContain(
        "models.box/x.textToolCalls",
      );
    },
  );
});

describe("prepareModel", () => {
  test("a local model needs no key: no credential, the server's base URL", () => {
    using home = tempDir();
    const prepared = prepareModel(setup(home.path, { GARUDA_MODEL: "ollama/qwen3:8b" }));
    expect(prepared.credential).toBeUndefined();
    expect(prepared.baseUrl).toBe("http://127.0.0.1:11434/v1");
    expect(prepared.provider.name).toBe("ollama");
    expect(prepared.model).toMatchObject({ id: "qwen3:8b", contextWindow: 32_768, maxTokens: 4_096 });
  });

  test("ANTHROPIC_BASE_URL does not move a local server", () => {
    using home = tempDir();
    const prepared = prepareModel(
      setup(home.path, { GARUDA_MODEL: "vllm/qwen", ANTHROPIC_BASE_URL: "https://gw.example.com" }),
    );
    expect(prepared.baseUrl).toBe("http://127.0.0.1:8000/v1");
  });

  test("OpenRouter needs its key: missing, from the environment (taken out of it), from the credentials file", () => {
    using home = tempDir();
    let missing: unknown;
    try {
      prepareModel(setup(home.path, { GARUDA_MODEL: "openrouter/qwen/qwen3-coder" }));
    } catch (error) {
      missing = error;
    }
    expect(missing).toBeInstanceOf(SetupRequiredError);
    expect((missing as SetupRequiredError).missing).toBe("key");
    expect((missing as SetupRequiredError).message).toContain(
      "Garuda has no key for openrouter/qwen/qwen3-coder (OPENROUTER_API_KEY)",
    );

    const env: Record<string, string | undefined> = {
      GARUDA_MODEL: "openrouter/qwen/qwen3-coder",
      OPENROUTER_API_KEY: "sk-or-env",
    };
    const fromEnv = prepareModel(setup(home.path, env));
    expect(fromEnv.credential).toEqual({
      kind: "apiKey",
      name: "OPENROUTER_API_KEY",
      value: "sk-or-env",
      source: "environment",
    });
    expect(env.OPENROUTER_API_KEY).toBeUndefined();
    expect(fromEnv.baseUrl).toBe("https://openrouter.ai/api/v1");

    const fromFile = prepareModel(
      setup(
        home.path,
        { GARUDA_MODEL: "openrouter/qwen/qwen3-coder" },
        { credentials: { OPENROUTER_API_KEY: "sk-or-file" } },
      ),
    );
    expect(fromFile.credential).toMatchObject({ value: "sk-or-file", source: "credentials" });
    // ANTHROPIC_AUTH_TOKEN is Anthropic's alone.
    using other = tempDir();
    expect(() =>
      prepareModel(setup(other.path, { GARUDA_MODEL: "openrouter/x", ANTHROPIC_AUTH_TOKEN: "tok" })),
    ).toThrow(SetupRequiredError);
  });
});
