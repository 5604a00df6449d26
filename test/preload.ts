// Runs before every test file: no test may read the user's ~/.garuda, hold a provider key
// or reach a network service through ambient configuration.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const PROVIDER_VARIABLES = [
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_AUTH_TOKEN",
  "ANTHROPIC_BASE_URL",
  "OPENROUTER_API_KEY",
  "OPENAI_API_KEY",
  "GARUDA_MODEL",
];
for (const name of PROVIDER_VARIABLES) delete process.env[name];

process.env.HOME = mkdtempSync(join(tmpdir(), "garuda-test-home-"));
