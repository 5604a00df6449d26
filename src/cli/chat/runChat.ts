// The chat as a process: the terminal (or pipe) it reads and draws on, the signals and crashes
// that end it with the terminal restored, and the first run's setup between two chats. Apart from
// chat.ts, which is the chat itself (its prompt loop, its turns, its session).
import { type CliContext, createCliContext } from "../context.ts";
import { Chat, type ChatOptions } from "./chat.ts";
import { reportCrashes } from "./exit.ts";
import { HeldOutput } from "./heldOutput.ts";
import { type ChatInput, LineInput } from "./input.ts";
import { Screen } from "./screen.ts";
import { StatusLine } from "./statusLine.ts";
import { styleFor, terminalMode } from "./style.ts";
import { TerminalInput } from "./terminalInput.ts";

const SIGNAL_EXIT = { SIGTERM: 143, SIGHUP: 129 } as const;
/** After SIGTERM or SIGHUP, the chat is gone within this long even if closing the session is not done. */
const SIGNAL_EXIT_MS = 800;

/** Runs the chat until /exit, Ctrl-D or Ctrl-C twice; returns the exit code. */
export async function runChat(options: ChatOptions): Promise<number> {
  const ctx = createCliContext(process.env);
  const first = await chatOnce(ctx, options);
  if (first.setupWanted !== true) return first.code;
  // The first run's setup, in this terminal: the chat's input has let go of it.
  const { runSetup } = await import("../setup/run.ts");
  // A model named with -m is the one set up (no model menu).
  const setup = await runSetup({ context: ctx, ...(options.model && { model: options.model }) });
  if (setup !== 0) return setup;
  process.stdout.write("\n");
  return (await chatOnce(ctx, options)).code;
}

async function chatOnce(ctx: CliContext, options: ChatOptions): Promise<{ code: number; setupWanted?: boolean }> {
  const mode = terminalMode(process.stdin, process.stdout, process.env);
  const style = styleFor(mode.output === "terminal", process.env);
  const output = new HeldOutput(process.stdout);
  const screen = new Screen(output, mode.output === "terminal", mode.input === "keys");
  const statusLine = screen.live ? new StatusLine(style) : undefined;
  const input: ChatInput =
    mode.input === "keys"
      ? new TerminalInput(process.stdin, screen, { footer: () => statusLine?.text(), mark: (line) => style.cyan(line) })
      : new LineInput(process.stdin, screen, mode.input === "echoed-lines");
  const chat = new Chat(ctx, input, screen, style, options, statusLine, screen.live ? output : undefined);
  // A resized window: the answer's unfinished block and the status rows are drawn again to it.
  const onResize = () => (chat.markdownStream ? chat.markdownStream.resized() : screen.resized());
  process.stdout.on("resize", onResize);
  // SIGTERM or SIGHUP: stop the turn, close the session (its commands are killed), exit 143 or 129.
  let stopping: Promise<never> | undefined;
  const onSignal = (signal: keyof typeof SIGNAL_EXIT) => () => {
    const leave = () => {
      input.close();
      return process.exit(SIGNAL_EXIT[signal]);
    };
    // Whatever the close waits for, the chat ends within SIGNAL_EXIT_MS, the terminal restored.
    setTimeout(leave, SIGNAL_EXIT_MS).unref?.();
    stopping ??= chat
      .close()
      .catch(() => {})
      .then(leave);
  };
  const stopReporting = reportCrashes(() => input.close());
  const handlers = Object.keys(SIGNAL_EXIT).map((name) => {
    const signal = name as keyof typeof SIGNAL_EXIT;
    const handler = onSignal(signal);
    process.on(signal, handler);
    return () => process.off(signal, handler);
  });
  try {
    const code = await chat.run();
    // A signal's exit wins over the chat's own end.
    if (stopping) await stopping;
    return { code, setupWanted: chat.setupWanted };
  } finally {
    for (const off of handlers) off();
    stopReporting();
    process.stdout.off("resize", onResize);
    input.close();
  }
}
