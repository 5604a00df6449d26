// A session's root can vanish under it: the user deletes or moves the project folder while the
// editor keeps the session open. A write would then make the folders on its way again, the root
// among them, and a command would start in a folder that is not the project; both are refused
// with this message instead.
import { lstatSync } from "node:fs";

/** Why no tool may run in `root` (a real path) any more, or undefined while it is still a folder. */
export function projectGone(root: string): string | undefined {
  try {
    // lstat: the root was a real path, so a symlink in its place is a replacement, not the project.
    if (lstatSync(root).isDirectory()) return undefined;
  } catch {
    // Gone.
  }
  return (
    `The project folder ${root} no longer exists (it was deleted, moved or replaced ` +
    `after this session started), so nothing was run, written or re-created. Tell ` +
    `the user: they can put the folder back, or start a new session in the folder ` +
    `they work in now.`
  );
}

/** The same as the user reads it (the model's text says what to tell them). */
export function projectGoneForUser(root: string): string {
  return (
    `Not run: the project folder ${root} no longer exists (deleted or moved). Put ` +
    `it back, or start Garuda in the folder you work in now.`
  );
}
