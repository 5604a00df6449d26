// Garuda's notes to the model, sent at the start of a user message (never in the system
// prompt, which must not change during a session): the mode, and what happened between turns.
import type { Mode } from "../core-types/mode.ts";
import type { TextBlock, UserBlock } from "../model/types.ts";
import type { BackgroundJob } from "../tools/processTable.ts";

export const PLAN_NOTE =
  "Plan mode is on: you cannot edit files, and commands cannot change the " +
  "project. Investigate, then answer with a plan: the files to change, what to " +
  "change in each, the order, and how to test it. The user switches to build mode " +
  "to carry it out.";
export const BUILD_AGAIN_NOTE = "Build mode is on again: you may make the changes now (edits ask the user first).";
export const CUT_CONTINUE_NOTE =
  "Your response was cut off at the output limit before it was finished. Go on " +
  "from where it stopped; put large content (a long file) into several smaller " +
  "tool calls.";
export const CUT_NOTE =
  "Your previous response was cut off at the output limit before it was finished. " +
  "If something was left undone, continue in smaller steps.";

export function noteBlock(text: string): TextBlock {
  return { type: "text", text: `<garuda_note>\n${text}\n</garuda_note>` };
}

/** The notes for a turn's mode: plan mode every turn, build mode once after a switch back. */
export function modeNotes(mode: Mode, previous: Mode | undefined): string[] {
  if (mode === "plan") return [PLAN_NOTE];
  return previous === "plan" ? [BUILD_AGAIN_NOTE] : [];
}

/** The user message: one block per note, then the prompt. */
export function userContent(prompt: string, notes: readonly string[]): UserBlock[] {
  return [...notes.map(noteBlock), { type: "text", text: prompt }];
}

/**
 * What plan mode did to the background processes build mode left running (the user and the
 * model read the same words): they could write the project, so they were stopped.
 */
export function planStoppedNote(jobs: readonly BackgroundJob[]): string {
  const named = jobs.map((job) => `${job.id} ($ ${job.command.replace(/\s+/g, " ").slice(0, 200)})`).join(", ");
  const one = jobs.length === 1;
  return (
    `Plan mode stopped the background process${one ? "" : "es"} ${named}: ` +
    `${one ? "it was" : "they were"} started ` +
    `${jobs.every((job) => job.sandboxed) ? "in build mode" : "in build mode or outside the sandbox"} ` +
    `and could write the project. ` +
    (`Start ${one ? "it" : "them"} again with process_manager if needed: in plan ` +
      `mode ${one ? "it runs" : "they run"} in the sandbox with the project ` +
      `read-only.`)
  );
}
