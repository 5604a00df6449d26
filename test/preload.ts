// Runs before every test file: no test may read the user's ~/.garuda, hold a provider key
// or reach a network service through ambient configuration.
import { afterAll } from "bun:test";
import { rmSync } from "node:fs";
import { makeTempDir } from "./support/tempDir.ts";

const PROVIDER_VARIABLES = [
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_AUTH_TOKEN",
  "ANTHROPIC_BASE_URL",
  "OPENROUTER_API_KEY",
  "OPENAI_API_KEY",
  "GARUDA_MODEL",
];
for (const name of PROVIDER_VARIABLES) delete process.env[name];

const home = makeTempDir("garuda-test-home-");
process.env.HOME = home;
// The test HOME goes when the tests are done: a hook registered here runs after the last file of
// the process (after each file under --parallel, which loads this file once per file). Bun 1.4
// runs no process "exit" handler at the end of `bun test`.
afterAll(() => rmSync(home, { recursive: true, force: true }));
