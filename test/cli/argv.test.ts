import { describe, expect, test } from "bun:test";
import { splitArgv } from "../../src/cli/argv.ts";
import { unsupportedPlatformMessage } from "../../src/cli/platform.ts";

describe("command line", () => {
  test("global options before the command move behind it", () => {
    expect(splitArgv(["--model", "claude-opus-5", "models"])).toEqual({ command: "models", commandArgs: ["--model", "claude-opus-5"], wantsHelp: false });
    expect(splitArgv(["-m", "x", "acp", "setup"])).toEqual({ command: "acp", commandArgs: ["setup", "-m", "x"], wantsHelp: false });
    expect(splitArgv(["models", "--model=x"])).toEqual({ command: "models", commandArgs: ["--model=x"], wantsHelp: false });
    expect(splitArgv([])).toEqual({ commandArgs: [], wantsHelp: false });
    expect(splitArgv(["models", "--help"]).wantsHelp).toBe(true);
  });

  test("native Windows is told to use WSL; other systems run", () => {
    expect(unsupportedPlatformMessage("win32")).toContain("WSL");
    expect(unsupportedPlatformMessage("linux")).toBeUndefined();
    expect(unsupportedPlatformMessage("darwin")).toBeUndefined();
  });
});

describe("the sandbox bridge command", () => {
  test("the compiled binary runs itself; from source Bun runs the bridge's entry file", async () => {
    const { selfCommand, SANDBOX_BRIDGE_COMMAND } = await import("../../src/cli/platform.ts");
    expect(selfCommand("/usr/local/bin/garuda", "/$bunfs/root")).toEqual(["/usr/local/bin/garuda", SANDBOX_BRIDGE_COMMAND]);
    expect(selfCommand("/usr/bin/bun", "/repo/src/cli")).toEqual(["/usr/bin/bun", "/repo/src/sandbox/bridgeMain.ts"]);
  });
});
