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
