// A stand-in for a Garuda process in the kill tests (gitGuard.kill.test.ts): an executor for the
// project, one sandboxed command started, its output echoed to stdout as it comes. The test kills
// this process with SIGKILL while the command runs.
//
//   bun test/sandbox/gitGuardAgent.ts <root> <home> <command>
import { join } from "node:path";
import { createExecutor } from "../../src/sandbox/executor.ts";

const [root, home, command] = process.argv.slice(2);
if (!root || !home || !command) throw new Error("usage: gitGuardAgent.ts <root> <home> <command>");
const executor = await createExecutor({ root, home, selfCommand: [process.execPath, join(import.meta.dir, "../../src/sandbox/bridgeMain.ts")] });
const job = executor.start({ command, cwd: root, sandbox: executor.spec() });
process.stdout.write(`started ${job.pid}\n`);
let shown = 0;
setInterval(() => {
  const text = job.output();
  if (text.length > shown) process.stdout.write(text.slice(shown));
  shown = text.length;
}, 10);
await job.exited;
process.stdout.write("\nended\n");
// Stays up, idle, until killed.
setInterval(() => undefined, 1_000);
