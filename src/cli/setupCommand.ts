import { defineCommand } from "citty";
import { runSetup } from "./setup/run.ts";

/** `garuda setup`: choose a model and enter its key, or show / forget what is saved. */
export const setupCommand = defineCommand({
  meta: { name: "setup", description: "Choose a model and enter its API key (saved in ~/.garuda)." },
  args: {
    model: {
      type: "string",
      alias: "m",
      description: "The model to set up (skips the model menu)",
      valueHint: "model",
    },
    show: { type: "boolean", description: "Show the model in use and each key's source, masked (needs no terminal)" },
    forget: { type: "boolean", description: "Remove a key from ~/.garuda/credentials (NAME, or the model's key)" },
    name: {
      type: "positional",
      required: false,
      description: "With --forget: the key name, such as ANTHROPIC_API_KEY",
      valueHint: "NAME",
    },
    "key-stdin": { type: "boolean", description: "Read the key from stdin (one line) instead of asking; for scripts" },
    check: {
      type: "boolean",
      default: true,
      description: "Check the key with one free request",
      negativeDescription: "Save the key without checking it (no request is sent)",
    },
  },
  async run({ args }) {
    return runSetup({
      ...(args.model ? { model: args.model } : {}),
      show: Boolean(args.show),
      forget: Boolean(args.forget),
      ...(args.name ? { forgetName: args.name } : {}),
      keyStdin: Boolean(args["key-stdin"]),
      check: args.check !== false,
    });
  },
});
