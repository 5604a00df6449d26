// `garuda` with no command: the terminal chat. This file only declares it; the chat's modules
// load when it runs.
import { defineCommand } from "citty";
import { CHAT_ARGS, promptArg, resumeArg } from "./chat/argv.ts";

export const chatCommand = defineCommand({
  meta: { name: "garuda", description: "The terminal chat." },
  args: CHAT_ARGS,
  async run({ args, rawArgs }) {
    const [{ runChat }, { exitWhenWritten }] = await Promise.all([
      import("./chat/runChat.ts"),
      import("./chat/exit.ts"),
    ]);
    const resume = resumeArg(rawArgs);
    const prompt = promptArg(rawArgs);
    const code = await runChat({
      model: args.model,
      mode: args.plan ? "plan" : "build",
      hideThinking: Boolean(args["hide-thinking"]),
      ...(prompt !== undefined && { prompt }),
      ...(args.continue
        ? { resume: { latest: true } }
        : resume !== undefined
          ? { resume: resume === "" ? { pick: true } : { id: resume } }
          : {}),
    });
    return exitWhenWritten(code);
  },
});
