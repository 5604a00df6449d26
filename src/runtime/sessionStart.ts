// What a Runtime starts from, worked out once when it is made: the project folder as it really is
// (absolute, followed through links, a folder), the system prompt (with the project's instruction
// files, read once), and the notices its start raised for the first turn (no OS sandbox, the
// instruction files' notes, the caller's own). Apart from runtime.ts, which wires the session.
import { realpathSync, statSync } from "node:fs";
import { isAbsolute } from "node:path";
import { VERSION } from "../version.ts";
import { readInstructions } from "./instructions.ts";
import type { RuntimeOptions } from "./runtimeOptions.ts";
import type { Notice } from "./services.ts";
import { buildSystemPrompt } from "./systemPrompt.ts";

/** The project folder `root` names, resolved; throws with a sentence for the user when it cannot be one. */
export function runtimeRoot(root: string): string {
  if (!isAbsolute(root)) throw new Error(`The project folder must be an absolute path: ${root}`);
  let real: string;
  try {
    real = realpathSync(root);
  } catch {
    throw new Error(`The project folder does not exist: ${root}`);
  }
  if (!statSync(real).isDirectory()) throw new Error(`The project folder is not a folder: ${root}`);
  return real;
}

/** The system prompt of a session at `root`, and the notices for its first turn. */
export function sessionStart(options: RuntimeOptions, root: string): { systemPrompt: string; notices: Notice[] } {
  const notices: Notice[] = [];
  const sandbox = options.sandboxAvailability ?? options.executor.sandbox;
  if (!sandbox.available)
    notices.push({
      level: "warning",
      text: `No OS sandbox: ${sandbox.reason} Every command asks before it runs. ${sandbox.fix}`,
    });
  const instructions = readInstructions(root);
  for (const text of instructions.notes) notices.push({ level: "info", text });
  notices.push(...(options.notices ?? []));
  const systemPrompt = buildSystemPrompt({
    version: VERSION,
    root,
    extraRoots: options.extraRoots ?? [],
    platform: process.platform,
    arch: process.arch,
    sandbox,
    instructions: instructions.files,
  });
  return { systemPrompt, notices };
}
