import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "../../src/errors/configError.ts";
import { findModel, loadModelCatalog, parseSpec } from "../../src/config/modelsFile.ts";
import { garudaPaths } from "../../src/config/paths.ts";
import { tempDir } from "../support/tempDir.ts";

function withModelsFile(content: string | undefined, check: (file: string) => void): void {
  using home = tempDir();
  const paths = garudaPaths(home.path);
  if (content !== undefined) {
    mkdirSync(paths.dir, { recursive: true });
    writeFileSync(paths.models, content);
  }
  check(paths.models);
}

function configErrorOf(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error("expected a ConfigError");
}

describe("models.json", () => {
  test("HOME decides where ~/.garuda is", () => {
    expect(garudaPaths("/h").models).toBe(join("/h", ".garuda", "models.json"));
    expect(garudaPaths("/h").credentials).toBe(join("/h", ".garuda", "credentials"));
  });

  test("absent: the built-in catalog, with no default", () => {
    withModelsFile(undefined, (file) => {
      const catalog = loadModelCatalog(file);
      expect(catalog.default).toBeUndefined();
      const sonnet = findModel(catalog, "claude-sonnet-5");
      expect(sonnet).toMatchObject({ provider: "anthropic", id: "claude-sonnet-5", contextWindow: 1_000_000 });
      expect(sonnet.price?.input).toBe(2);
      expect(findModel(catalog, "anthropic/claude-sonnet-5")).toEqual(sonnet);
    });
  });

  test("extends and overrides the catalog, and sets the default", () => {
    const file = JSON.stringify({
      default: "claude-sonnet-5",
      providers: { gateway: { type: "anthropic", baseUrl: "https://llm.example.com/", apiKeyEnv: "GATEWAY_KEY" } },
      models: {
        "claude-sonnet-5": { maxTokens: 64000 },
        "gateway/claude-x": { contextWindow: 50000, maxTokens: 8000, price: { input: 1, output: 2 } },
      },
    });
    withModelsFile(file, (path) => {
      const catalog = loadModelCatalog(path);
      expect(catalog.default).toBe("claude-sonnet-5");
      expect(findModel(catalog, "claude-sonnet-5")).toMatchObject({ maxTokens: 64000, contextWindow: 1_000_000 });
      expect(findModel(catalog, "gateway/claude-x")).toMatchObject({
        provider: "gateway",
        id: "claude-x",
        contextWindow: 50000,
      });
      expect(catalog.providers.gateway).toEqual({
        name: "gateway",
        type: "anthropic",
        baseUrl: "https://llm.example.com",
        apiKeyEnv: "GATEWAY_KEY",
      });
    });
  });

  test("a family name (as agent files use) is the newest model of that family, models.json's included", () => {
    withModelsFile(undefined, (file) => {
      const catalog = loadModelCatalog(file);
      expect(findModel(catalog, "sonnet").id).toBe("claude-sonnet-5");
      expect(findModel(catalog, "haiku").id).toBe("claude-haiku-4-5");
      expect(findModel(catalog, "anthropic/opus").id).toBe("claude-opus-5");
      expect(findModel(catalog, "fable").id).toBe("claude-fable-5-1");
    });
    withModelsFile(JSON.stringify({ models: { "claude-sonnet-5-2": {}, "claude-haiku-4-5-20251001": {} } }), (file) => {
      const catalog = loadModelCatalog(file);
      expect(findModel(catalog, "sonnet").id).toBe("claude-sonnet-5-2");
      expect(findModel(catalog, "haiku").id).toBe("claude-haiku-4-5-20251001");
    });
  });

  test("an unknown Claude id gets conservative limits and no price", () => {
    withModelsFile(undefined, (file) => {
      expect(findModel(loadModelCatalog(file), "claude-next")).toMatchObject({
        id: "claude-next",
        contextWindow: 200_000,
        price: null,
      });
    });
  });

  test("a model of an unknown provider is a clear error", () => {
    withModelsFile(undefined, (file) => {
      const error = configErrorOf(() => findModel(loadModelCatalog(file), "nowhere/model"));
      expect(error.message).toContain('unknown provider "nowhere"');
      expect(error.message).toContain("anthropic");
    });
  });

  test("malformed JSON names the file and the problem", () => {
    withModelsFile('{"default": ', (file) => {
      const error = configErrorOf(() => loadModelCatalog(file));
      expect(error.message).toStartWith(`${file}: is not valid JSON`);
      expect(error.message).toContain("garuda setup");
    });
  });

  test("a wrong field names where it is", () => {
    withModelsFile(JSON.stringify({ default: 3 }), (file) => {
      expect(configErrorOf(() => loadModelCatalog(file)).message).toContain("at default:");
    });
    withModelsFile(JSON.stringify({ models: { "claude-x": { contextWindow: -1 } } }), (file) => {
      expect(configErrorOf(() => loadModelCatalog(file)).message).toContain("at models.claude-x.contextWindow");
    });
    withModelsFile(JSON.stringify({ defualt: "claude-sonnet-5" }), (file) => {
      expect(configErrorOf(() => loadModelCatalog(file)).message).toContain("defualt");
    });
  });

  test("base URLs: https, or http only to this machine, never with a password", () => {
    const provider = (baseUrl: string) =>
      JSON.stringify({ providers: { p: { type: "anthropic", baseUrl, apiKeyEnv: "K" } } });
    withModelsFile(provider("http://127.0.0.1:8080"), (file) => {
      expect(loadModelCatalog(file).providers.p?.baseUrl).toBe("http://127.0.0.1:8080");
    });
    withModelsFile(provider("http://llm.example.com"), (file) => {
      expect(configErrorOf(() => loadModelCatalog(file)).message).toContain(
        "plain http:// is only allowed to this machine",
      );
    });
    withModelsFile(provider("https://user:secret@llm.example.com"), (file) => {
      const message = configErrorOf(() => loadModelCatalog(file)).message;
      expect(message).toContain("must not contain a user name or password");
      expect(message).not.toContain("secret");
    });
  });

  test("specs split at the first slash", () => {
    expect(parseSpec("claude-sonnet-5")).toEqual({ provider: "anthropic", id: "claude-sonnet-5" });
    expect(parseSpec("openrouter/anthropic/claude")).toEqual({ provider: "openrouter", id: "anthropic/claude" });
  });
});
