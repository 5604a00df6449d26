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
 * How the executor starts the bridge: the compiled binary runs itself; from source, Bun runs
 * the bridge's entry file.
 */
export function selfCommand(execPath: string, entryFile: string | undefined): string[] {
  const compiled = entryFile === undefined || entryFile.startsWith("/$bunfs/") || entryFile === execPath;
  return compiled ? [execPath, SANDBOX_BRIDGE_COMMAND] : [execPath, entryFile, SANDBOX_BRIDGE_COMMAND];
}
