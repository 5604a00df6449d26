import { join } from "node:path";

/** Garuda's sandbox, process groups and signals are POSIX; on native Windows it runs under WSL. */
export function unsupportedPlatformMessage(platform: NodeJS.Platform): string | undefined {
  if (platform !== "win32") return undefined;
  return [
    "Garuda runs on Linux and macOS. On Windows, run it inside WSL:",
    "  wsl --install        (once, in PowerShell)",
    "  then install the Linux binary of Garuda inside WSL and run `garuda` there.",
    "Editors on Windows can start it as: wsl garuda acp",
  ].join("\n");
}

/** The hidden command that runs Garuda's network bridge inside the sandbox. */
export const SANDBOX_BRIDGE_COMMAND = "__sandbox-bridge";

/**
 * How the executor starts the bridge: the compiled binary runs itself with the hidden command;
 * from source (`cliDir` is src/cli on disk), Bun runs the bridge's own entry file. Pass
 * dirname(Bun.main): import.meta.dir keeps the source folder in a --bytecode build.
 */
export function selfCommand(execPath: string, cliDir: string): string[] {
  if (cliDir.startsWith("/$bunfs") || cliDir.startsWith("B:\\~BUN")) return [execPath, SANDBOX_BRIDGE_COMMAND];
  return [execPath, join(cliDir, "..", "sandbox", "bridgeMain.ts")];
}
