// Runs before every test file: no test may read the user's ~/.garuda, hold a provider key
// or reach a network service through ambient configuration.
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

process.env.HOME = makeTempDir("garuda-test-home-");
