import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { SetupRequiredError } from "../../src/errors/configError.ts";
import { type ModelSetupContext, prepareModel } from "../../src/config/modelSetup.ts";
import { garudaPaths } from "../../src/config/paths.ts";
import { keepProviderKeys } from "../../src/config/providerKeys.ts";
import { writeCredentials } from "../../src/config/credentials.ts";
import { tempDir } from "../support/tempDir.ts";

function setup(
  home: string,
  env: Record<string, string | undefined>,
  options: { models?: object; credentials?: Record<string, string>; flag?: string } = {},
): ModelSetupContext {
  const paths = garudaPaths(home);
  if (options.models) {
    mkdirSync(paths.dir, { recursive: true });
    writeFileSync(paths.models, JSON.stringify(options.models));
  }
  if (options.credentials) writeCredentials(paths.credentials, options.credentials);
  return { paths, env, keys: keepProviderKeys(env), modelFlag: options.flag };
}

function setupError(ctx: ModelSetupContext): SetupRequiredError {
  try {
    prepareModel(ctx);
  } catch (error) {
    if (error instanceof SetupRequiredError) return error;
    throw error;
  }
  throw new Error("expected SetupRequiredError");
}

describe("model choice and keys", () => {
  test("no model at all until the user chooses one, or an Anthropic key in the environment picks Sonnet", () => {
    using home = tempDir();
    const error = setupError(setup(home.path, {}));
    expect(error.missing).toBe("model");
    expect(error.message).toBe("Garuda has no model. Run `garuda setup` in a terminal, or use your editor's sign-in.");
    // A key in the environment is used as it is: nothing to set up.
    for (const name of ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"]) {
      const prepared = prepareModel(setup(home.path, { [name]: "sk-env" }));
      expect(prepared.choice).toEqual({ spec: "claude-sonnet-5", source: "environment key" });
      expect(prepared.credential).toMatchObject({ name, value: "sk-env", source: "environment" });
    }
    // A key in the credentials file is no such sign: the model is still the user's to choose.
    expect(setupError(setup(home.path, {}, { credentials: { ANTHROPIC_API_KEY: "sk-file" } })).missing).toBe("model");
    // OpenRouter's models are the server's: its key alone picks none.
    expect(setupError(setup(home.path, { OPENROUTER_API_KEY: "sk-or" })).missing).toBe("model");
  });

  test("--model beats GARUDA_MODEL beats the models.json default", () => {
    using home = tempDir();
    const env = { ANTHROPIC_API_KEY: "sk-env", GARUDA_MODEL: "claude-opus-5" };
    const models = { default: "claude-haiku-4-5" };
    expect(prepareModel(setup(home.path, { ...env }, { models, flag: "claude-sonnet-5" })).choice).toEqual({
      spec: "claude-sonnet-5",
      source: "--model",
    });
    expect(prepareModel(setup(home.path, { ...env }, { models })).choice).toEqual({
      spec: "claude-opus-5",
      source: "GARUDA_MODEL",
    });
    expect(prepareModel(setup(home.path, { ANTHROPIC_API_KEY: "k" }, { models })).choice).toEqual({
      spec: "claude-haiku-4-5",
      source: "models.json",
    });
    // An editor entry with "GARUDA_MODEL": "" means "not set".
    expect(prepareModel(setup(home.path, { ANTHROPIC_API_KEY: "k", GARUDA_MODEL: "" }, { models })).choice.source).toBe(
      "models.json",
    );
  });

  test("no key names the model and the variable", () => {
    using home = tempDir();
    const error = setupError(setup(home.path, { GARUDA_MODEL: "claude-sonnet-5" }));
    expect(error.missing).toBe("key");
    expect(error.message).toContain("Garuda has no key for claude-sonnet-5 (ANTHROPIC_API_KEY)");
    expect(error.message).toContain("garuda setup");
  });

  test("the key comes from the environment first, then ~/.garuda/credentials", () => {
    using home = tempDir();
    const fromFile = prepareModel(
      setup(home.path, { GARUDA_MODEL: "claude-sonnet-5" }, { credentials: { ANTHROPIC_API_KEY: "sk-file" } }),
    );
    expect(fromFile.credential).toEqual({
      kind: "apiKey",
      name: "ANTHROPIC_API_KEY",
      value: "sk-file",
      source: "credentials",
    });
    const fromEnv = prepareModel(setup(home.path, { GARUDA_MODEL: "claude-sonnet-5", ANTHROPIC_API_KEY: "sk-env" }));
    expect(fromEnv.credential).toMatchObject({ value: "sk-env", source: "environment" });
  });

  test("an auth token works for Anthropic gateways", () => {
    using home = tempDir();
    const prepared = prepareModel(setup(home.path, { GARUDA_MODEL: "claude-sonnet-5", ANTHROPIC_AUTH_TOKEN: "tok" }));
    expect(prepared.credential).toMatchObject({ kind: "authToken", name: "ANTHROPIC_AUTH_TOKEN", value: "tok" });
  });

  test("base URL: ANTHROPIC_BASE_URL beats models.json", () => {
    using home = tempDir();
    const models = {
      default: "claude-sonnet-5",
      providers: { anthropic: { type: "anthropic", baseUrl: "https://gw.example.com" } },
    };
    expect(prepareModel(setup(home.path, { ANTHROPIC_API_KEY: "k" }, { models })).baseUrl).toBe(
      "https://gw.example.com",
    );
    const withEnv = setup(
      home.path,
      { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: "http://127.0.0.1:9999/" },
      { models },
    );
    expect(prepareModel(withEnv).baseUrl).toBe("http://127.0.0.1:9999");
  });

  test("a provider's own key variable leaves the environment when models.json names it", () => {
    using home = tempDir();
    const env: Record<string, string | undefined> = { GATEWAY_KEY: "gw-secret" };
    const models = {
      default: "gw/claude-x",
      providers: { gw: { type: "anthropic", baseUrl: "https://gw.example.com", apiKeyEnv: "GATEWAY_KEY" } },
    };
    const prepared = prepareModel(setup(home.path, env, { models }));
    expect(prepared.credential).toMatchObject({ name: "GATEWAY_KEY", value: "gw-secret", source: "environment" });
    expect(env.GATEWAY_KEY).toBeUndefined();
  });

  test("the files are read again each time: a setup between two sessions takes effect", () => {
    using home = tempDir();
    const ctx = setup(home.path, {});
    expect(setupError(ctx).missing).toBe("model");
    mkdirSync(ctx.paths.dir, { recursive: true });
    writeFileSync(ctx.paths.models, JSON.stringify({ default: "claude-sonnet-5" }));
    writeCredentials(ctx.paths.credentials, { ANTHROPIC_API_KEY: "sk-new" });
    expect(prepareModel(ctx).credential?.value).toBe("sk-new");
  });
});
