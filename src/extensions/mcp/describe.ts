// What the user reads before an MCP server starts (a project's, an editor's, one that runs the
// project's code, or any local one with no OS sandbox) and when a project server's tools changed since the yes: the
// full command, where it
// runs, its network and environment, a remote server's address and each header with the
// variables that fill it, and warnings for the risky patterns. Values taken from the
// environment are never shown: only their names.
import type { Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import { previewLine } from "../clean.ts";
import type { McpServerConfig } from "./config.ts";
import { commandLine } from "./connection.ts";
import { toolKeys } from "./tools.ts";
import type { ServerLaunch } from "./serverLaunch.ts";
import type { ToolKeys } from "../../config/approvedTools.ts";

const SECRET_NAME = /(key|token|secret|passw|credential|auth)/i;

const variables = (names: readonly string[]) => names.map((name) => `$${name}`).join(", ");

function remoteWarnings(config: McpServerConfig & { transport: "http" | "sse" }): string[] {
  const host = new URL(config.url).host;
  const sent = [...new Set([...config.urlSources, ...Object.values(config.headerSources).flat()])];
  return sent.length > 0 ? [`It sends the value of ${variables(sent)}, from your environment, to ${host}.`] : [];
}

function warnings(config: McpServerConfig, sandboxed: boolean, launch: ServerLaunch | undefined): string[] {
  if (config.transport !== "stdio") return remoteWarnings(config);
  const line = [config.command, ...config.argsWritten].join(" ");
  const found: string[] = [];
  if (!sandboxed) found.push("No OS sandbox: the server would run directly on this computer, with your permissions.");
  if (launch && launch.projectFiles.length > 0) {
    const given = Object.keys(config.env);
    found.push(
      `It runs the project's code: whoever can change this project (the repository ` +
        `you cloned, a command run in it) decides what the server ` +
        `does${given.length > 0 ? `, with ${given.join(", ")}` : ""}. A change to these ` +
        `files asks again.`,
    );
    if (launch.projectFiles.some((file) => file.hash === undefined))
      found.push(
        "Part of what it runs cannot be pinned by its content (found through the " +
          "project folder, or larger than 64 MiB): it is asked about in every session.",
      );
  }
  if (/(^|\s|\/)(npx|uvx|bunx|pnpm\s+dlx|yarn\s+dlx|dlx)(\s|$)/.test(line))
    found.push(
      "It downloads and runs a package at each start (npx, uvx, dlx …): the package's " +
        "current version runs, not a pinned one.",
    );
  if (/(^|\s)(sh|bash|zsh)\s+-c(\s|$)/.test(line) || /\|\s*(sh|bash)\b/.test(line) || /\b(curl|wget)\b/.test(line))
    found.push("It runs a shell line or fetches something to run.");
  if (/(^|\s)sudo(\s|$)/.test(line) || /\brm\s+-[a-z]*r[a-z]*f|\brm\s+-[a-z]*f[a-z]*r/.test(line))
    found.push("It uses sudo or rm -rf.");
  if (config.network)
    found.push("It asks for the network (through Garuda's proxy: hosts off the allowlist ask first).");
  const secrets = Object.keys(config.env).filter((name) => SECRET_NAME.test(name));
  if (secrets.length > 0) found.push(`It is given secret-looking variables: ${secrets.join(", ")}.`);
  return found;
}

/** The consent preview for starting a server (`launch`: what a local one runs, serverLaunch.ts). */
export function describeServer(config: McpServerConfig, sandboxed: boolean, launch?: ServerLaunch): string {
  const lines = [`MCP server "${config.name}" from ${config.file}`];
  if (config.transport === "stdio") {
    const command = commandLine({ command: config.command, args: config.argsWritten }).replace(/^exec /, "");
    lines.push(`  $ ${previewLine(command, 2_000)}`);
    const runs = sandboxed
      ? "inside the OS sandbox (the project writable, .git/hooks and .garuda read-only)"
      : "directly on this computer (no OS sandbox)";
    lines.push(`  Runs: ${runs}`);
    lines.push(`  Network: ${config.network ? "through Garuda's proxy" : "none"}`);
    if (config.writePaths.length > 0) lines.push(`  Also writable: ${config.writePaths.join(", ")}`);
    const env = Object.keys(config.env).map((name) => {
      // An editor's values (tokens, often) are never shown, logged or stored: the names only.
      if (config.scope === "editor") return `${name} (set by the editor)`;
      const sources = config.envSources[name] ?? [];
      return sources.length > 0
        ? `${name} (from ${sources.map((s) => `$${s}`).join(", ")})`
        : `${name}=${previewLine(config.env[name] ?? "", 80)}`;
    });
    if (env.length > 0) lines.push(`  Environment: ${env.join(", ")}`);
    if (launch && launch.projectFiles.length > 0)
      lines.push(`  The project's code: ${launch.projectFiles.map((file) => previewLine(file.shown, 200)).join(", ")}`);
    if (launch && launch.notes.length > 0) lines.push(`  Kept out of the project: ${launch.notes.join("; ")}`);
  } else {
    const from = config.urlSources.length > 0 ? `, with ${variables(config.urlSources)} in it` : "";
    lines.push(
      `  Address: ${previewLine(config.urlWritten, 500)} ` +
        `(${config.transport === "sse" ? "SSE" : "Streamable HTTP"}${from})`,
    );
    const headers = Object.keys(config.headers).map((name) => {
      const sources = config.headerSources[name] ?? [];
      return (
        `${previewLine(name, 80)} ` +
        `(${sources.length > 0 ? `from ${variables(sources)}` : "a value written in the file"})`
      );
    });
    if (headers.length > 0) lines.push(`  Headers: ${headers.join(", ")}`);
  }
  const found = warnings(config, sandboxed, launch);
  if (found.length > 0) lines.push("", "Warnings:", ...found.map((text) => `  ⚠ ${text}`));
  return lines.join("\n");
}

/**
 * The preview for a changed tool list: what was added, removed or changed (when the old list is known), then the tools
 * now.
 */
export function describeToolChange(server: string, now: readonly McpTool[], before: ToolKeys | undefined): string {
  const lines = [`The tools of the MCP server "${server}" changed since you approved it.`];
  if (before) {
    const current = toolKeys(now);
    const added = Object.keys(current).filter((name) => before[name] === undefined);
    const changed = Object.keys(current).filter((name) => before[name] !== undefined && before[name] !== current[name]);
    const removed = Object.keys(before).filter((name) => current[name] === undefined);
    if (added.length > 0) lines.push(`  Added: ${added.map((n) => previewLine(n, 80)).join(", ")}`);
    if (changed.length > 0) lines.push(`  Changed: ${changed.map((n) => previewLine(n, 80)).join(", ")}`);
    if (removed.length > 0) lines.push(`  Removed: ${removed.map((n) => previewLine(n, 80)).join(", ")}`);
  }
  lines.push(
    "",
    "Its tools now:",
    ...now.slice(0, 50).map((tool) => `  • ${previewLine(tool.name, 80)}: ${previewLine(tool.description ?? "", 200)}`),
  );
  return lines.join("\n");
}
