// The MCP fixture servers as single files with the SDK inside (`bun build`). A local server's
// sandbox gets only the files its command line names (src/extensions/mcp/serverLaunch.ts), not
// the checkout's node_modules, and a checkout under /tmp is not visible in the sandbox at all
// (its /tmp is the session's own): a bundle named on the command line runs wherever the checkout
// is. Built once per test process into its HOME (test/preload.ts removes that after the run).
import { existsSync, mkdirSync, renameSync } from "node:fs";
import { basename, join } from "node:path";

const FIXTURES = join(import.meta.dir, "..", "fixtures");

function bundled(name: string): string {
  const dir = join(process.env.HOME ?? "/nonexistent", "mcp-fixtures");
  const out = join(dir, name.replace(/\.ts$/, ".js"));
  if (existsSync(out)) return out;
  mkdirSync(dir, { recursive: true });
  const partial = `${out}.${process.pid}.partial`;
  const build = Bun.spawnSync([process.execPath, "build", join(FIXTURES, name), "--target=bun", "--outfile", partial], {
    stdout: "pipe",
    stderr: "pipe",
  });
  if (build.exitCode !== 0) throw new Error(`bun build ${basename(name)} failed: ${build.stderr.toString()}`);
  renameSync(partial, out);
  return out;
}

/** test/fixtures/mcpServer.ts, bundled. */
export const FIXTURE_SERVER = bundled("mcpServer.ts");
/** test/fixtures/mcpEditorServer.ts, bundled. */
export const EDITOR_SERVER = bundled("mcpEditorServer.ts");
