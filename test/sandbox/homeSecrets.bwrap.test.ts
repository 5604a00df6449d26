// The home's token files (src/files/secrets.ts HOME_SECRETS) are unreadable to every sandboxed
// command, also to one that names none of them: `grep -r token ~` finds nothing. Registry, cloud,
// database and assistant tokens besides the long-known ones (~/.npmrc is the control). Without the
// entries in HOME_SECRETS each of these was readable.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { createExecutor } from "../../src/sandbox/executor.ts";
import type { ProcessExecutor } from "../../src/sandbox/types.ts";
import { describeSandbox, testExecutorOptions } from "../support/sandboxSupport.ts";
import { tempDir } from "../support/tempDir.ts";

const scratch = tempDir("garuda-homesecrets-", { real: true });
const home = join(scratch.path, "home");
const root = join(home, "project");
let executor: ProcessExecutor;

/** Token files of common tools, relative to the home, with what they hold. */
const PLACES: Record<string, string> = {
  ".npmrc": "//registry.npmjs.org/:_authToken=NPMRC-TOKEN", // on the list: the control
  ".terraform.d/credentials.tfrc.json": '{"credentials":{"app.terraform.io":{"token":"TFC-TOKEN"}}}',
  ".yarnrc.yml": 'npmAuthToken: "YARN-TOKEN"',
  ".pgpass": "db.example.com:5432:*:admin:PGPASS-TOKEN",
  ".gradle/gradle.properties": "mavenPassword=GRADLE-TOKEN",
  ".m2/settings.xml": "<settings><servers><server><password>MAVEN-TOKEN</password></server></servers></settings>",
  ".gem/credentials": "---\n:rubygems_api_key: GEM-TOKEN",
  ".config/composer/auth.json": '{"github-oauth":{"github.com":"COMPOSER-TOKEN"}}',
  ".vault-token": "VAULT-TOKEN",
  ".config/github-copilot/apps.json": '{"github.com":{"oauth_token":"COPILOT-TOKEN"}}',
  ".config/hub": "github.com:\n- oauth_token: HUB-TOKEN",
  ".config/rclone/rclone.conf": "[s3]\nsecret_access_key = RCLONE-TOKEN",
  // `uv auth login` keeps its tokens in uv's data folder.
  ".local/share/uv/credentials/credentials.toml":
    '[[credential]]\nservice = "https://pypi.example"\npassword = "UV-TOKEN"',
};

describeSandbox(
  "token files in the home",
  () => {
    beforeAll(async () => {
      mkdirSync(root, { recursive: true });
      for (const [path, text] of Object.entries(PLACES)) {
        mkdirSync(dirname(join(home, path)), { recursive: true });
        writeFileSync(join(home, path), `${text}\n`);
      }
      executor = await createExecutor({ ...testExecutorOptions(root, home), gitGuard: false });
    });
    afterAll(async () => {
      await executor?.shutdown();
      scratch[Symbol.dispose]();
    });

    test("none is readable by a sandboxed command that greps the home for tokens", async () => {
      // A command that names none of the files: it greps the home for tokens.
      const run = await executor.run({
        command: `grep -rhoE '[A-Z]+-TOKEN' "$HOME" 2>/dev/null | sort -u`,
        cwd: root,
        sandbox: executor.spec(),
      });
      const read = run.output.split("\n").filter(Boolean);
      expect(read).not.toContain("NPMRC-TOKEN"); // the control: on the list, hidden
      expect(read).toEqual([]);
    });
  },
  "bwrap",
);
