import { describe, expect, test } from "bun:test";
import { nearestOption, type OptionSpecs, scanArgs, splitArgv } from "../../src/cli/argv.ts";
import { CHAT_ARGS } from "../../src/cli/chat/argv.ts";
import { setupCommand } from "../../src/cli/setupCommand.ts";

const RUN_ARGS = {
  prompt: { type: "positional" },
  format: { type: "enum", options: ["text", "json"] },
  allow: { type: "string" },
  plan: { type: "boolean" },
  "hide-thinking": { type: "boolean" },
  model: { type: "string", alias: "m" },
} as const;
import { unsupportedPlatformMessage } from "../../src/cli/platform.ts";

describe("command line", () => {
  test("global options before the command move behind it", () => {
    expect(splitArgv(["--model", "claude-opus-5", "models"])).toEqual({
      command: "models",
      commandArgs: ["--model", "claude-opus-5"],
      wantsHelp: false,
    });
    expect(splitArgv(["-m", "x", "acp", "setup"])).toEqual({
      command: "acp",
      commandArgs: ["setup", "-m", "x"],
      wantsHelp: false,
    });
    expect(splitArgv(["models", "--model=x"])).toEqual({
      command: "models",
      commandArgs: ["--model=x"],
      wantsHelp: false,
    });
    expect(splitArgv([])).toEqual({ commandArgs: [], wantsHelp: false });
    expect(splitArgv(["models", "--help"]).wantsHelp).toBe(true);
  });

  test(
    "every spelling citty reads is known: --x, --x=v, -m v, -mV, --no-bool, " + "camelCase, -, and words after --",
    () => {
      const ok = scanArgs(
        [
          "--format=json",
          "--plan",
          "--no-plan",
          "--hideThinking",
          "-m",
          "x",
          "-my",
          "--allow",
          "bash(*)",
          "fix",
          "-",
          "--",
          "--not-an-option",
        ],
        RUN_ARGS,
      );
      expect(ok).toEqual({ words: ["fix", "-", "--not-an-option"] });
      expect(scanArgs(["--help"], RUN_ARGS).problem).toBeUndefined();
      expect(scanArgs(["-h"], RUN_ARGS).problem).toBeUndefined();
    },
  );

  test("an unknown or misspelled option is a problem, with the nearest option when it is a typo", () => {
    expect(scanArgs(["--fromat", "json", "hi"], RUN_ARGS).problem).toBe(
      "unknown option --fromat (did you mean --format?).",
    );
    expect(scanArgs(["--alow", "bash(*)"], RUN_ARGS).problem).toBe("unknown option --alow (did you mean --allow?).");
    expect(scanArgs(["--bogus"], RUN_ARGS).problem).toBe("unknown option --bogus.");
    expect(scanArgs(["-x"], RUN_ARGS).problem).toBe("unknown option -x.");
    expect(scanArgs(["--no-model"], RUN_ARGS).problem).toStartWith("unknown option --no-model");
    expect(nearestOption("--modle", ["--model", "--plan"])).toBe("--model");
    expect(nearestOption("--zzzzzz", ["--model", "--plan"])).toBeUndefined();
  });

  test("an enum's value must be one of its choices; a value option needs its value", () => {
    expect(scanArgs(["--format", "xml"], RUN_ARGS).problem).toBe('--format must be one of text, json, not "xml".');
    expect(scanArgs(["--format=JSON"], RUN_ARGS).problem).toBe('--format must be one of text, json, not "JSON".');
    expect(scanArgs(["hi", "--format"], RUN_ARGS).problem).toBe("--format needs a value: one of text, json.");
    expect(scanArgs(["--format", "--plan", "hi"], RUN_ARGS).problem).toBe("--format needs a value: one of text, json.");
    expect(scanArgs(["--model"], RUN_ARGS).problem).toBe("--model needs a value.");
    expect(scanArgs(["--model="], RUN_ARGS).problem).toBe("--model needs a value.");
    expect(scanArgs(["--resume="], CHAT_ARGS, ["resume"]).problem).toBeUndefined();
  });

  test("the chat's --resume may stand alone; the words are found past a problem", () => {
    expect(scanArgs(["--resume"], CHAT_ARGS, ["resume"]).problem).toBeUndefined();
    expect(scanArgs(["--resume", "--plan"], CHAT_ARGS, ["resume"]).problem).toBeUndefined();
    expect(scanArgs(["-r", "abc", "-c"], CHAT_ARGS, ["resume"])).toEqual({ words: [] });
    expect(scanArgs(["--show", "setup"], { model: { type: "string" } }).words).toEqual(["setup"]);
  });

  test("setup's options, as `garuda acp setup` takes them, are known", () => {
    expect(
      scanArgs(["--show", "--no-check", "--key-stdin", "--forget", "NAME", "-m", "x"], setupCommand.args as OptionSpecs)
        .problem,
    ).toBeUndefined();
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
    expect(selfCommand("/usr/local/bin/garuda", "/$bunfs/root")).toEqual([
      "/usr/local/bin/garuda",
      SANDBOX_BRIDGE_COMMAND,
    ]);
    expect(selfCommand("/usr/bin/bun", "/repo/src/cli")).toEqual(["/usr/bin/bun", "/repo/src/sandbox/bridgeMain.ts"]);
  });
});
