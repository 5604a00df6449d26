import { describe, expect, test } from "bun:test";
import { isGarudaPath, isGitPath, namesSensitive, sensitivePattern } from "../../src/permission/sensitive.ts";

const ctx = { root: "/p", home: "/home/u", caseInsensitive: false };

describe("sensitive files", () => {
  test.each([
    "/p/.env",
    "/p/api/.env.local",
    "/p/.envrc",
    "/home/u/.ssh/id_ed25519",
    "/home/u/.aws/credentials",
    "/home/u/.config/gcloud/application_default_credentials.json",
    "/home/u/.kube/config",
    "/home/u/.docker/config.json",
    "/home/u/.npmrc",
    "/p/.npmrc",
    "/home/u/.netrc",
    "/home/u/.git-credentials",
    "/home/u/.gnupg/private-keys-v1.d/x.key",
    "/p/certs/server.pem",
    "/p/certs/server.KEY",
    "/p/keystore.p12",
    "/home/u/.garuda/credentials",
  ])("%p is sensitive", (path) => {
    expect(sensitivePattern(path)).toBeString();
  });

  test.each([
    "/p/src/env.ts",
    "/p/.env.example",
    "/p/.env.sample",
    "/p/README.md",
    "/p/keys.ts",
    "/home/u/.garuda/models.json",
  ])("%p is not sensitive", (path) => {
    expect(sensitivePattern(path)).toBeUndefined();
  });

  test("an allow rule names a sensitive file only on purpose", () => {
    expect(namesSensitive(".env", "/p/.env", ctx)).toBe(true);
    expect(namesSensitive("./.env", "/p/.env", ctx)).toBe(true);
    expect(namesSensitive("*.pem", "/p/a.pem", ctx)).toBe(true);
    expect(namesSensitive("~/.ssh/**", "/home/u/.ssh/id_rsa", ctx)).toBe(true);
    expect(namesSensitive("**", "/p/.env", ctx)).toBe(false);
    expect(namesSensitive("*", "/p/.env", ctx)).toBe(false);
    expect(namesSensitive("src/**", "/p/.env", ctx)).toBe(false);
  });

  test(".git and ~/.garuda", () => {
    expect(isGitPath("/p/.git/hooks/pre-commit")).toBe(true);
    expect(isGitPath("/p/sub/.git/config")).toBe(true);
    expect(isGitPath("/p/.gitignore")).toBe(false);
    expect(isGarudaPath("/home/u/.garuda/policy.json", "/home/u")).toBe(true);
    expect(isGarudaPath("/p/.garuda/settings.json", "/home/u")).toBe(false);
  });
});
