// What the git guard tells the user and the model, in the output of the command it concerns (the
// tool result both see): what it moved aside or put back, and why; what the model should do
// instead (run that git command outside the sandbox, where the user is asked first); and what it
// cannot see as fast as it should (a tree too big to walk, or one it scans instead of watching).
import { dirname, relative } from "node:path";
import { groupedCount } from "../../text/count.ts";
import { type Moved, QUARANTINE_DIR } from "./quarantine.ts";
import type { Marker } from "./repos.ts";
import type { TreeWatch } from "./watchTypes.ts";

const OUTSIDE = "run the git command outside the sandbox (outside_sandbox: true; the user is asked first)";

export const SWEPT_NOTE =
  "[Garuda: a Garuda session was killed while a command ran in the sandbox here, " +
  "before its last check; this session checked the project and found what " +
  "follows.]";

/** The notes about the project at `root` (paths in them relative to it). */
export function guardNotes(root: string) {
  const rel = (path: string) => relative(root, path) || ".";

  function describe(marker: Marker): string {
    if (marker.kind === "bare") return `made ${rel(marker.dir)} a git repository (HEAD, objects, refs)`;
    const what =
      marker.kind === "file"
        ? "a .git file (a link to a git folder)"
        : marker.kind === "link"
          ? "a .git symbolic link"
          : "a git repository";
    return `made ${rel(marker.entry)}, ${what}`;
  }

  function moved(result: Moved, what: string, where: string): string {
    if ("to" in result) return `Garuda moved it to ${rel(result.to)}`;
    return (
      `Garuda could not move it (${result.error}): tell the user not to run git in ` +
      `${where} before checking ${what}`
    );
  }

  return {
    rel,
    /** A repository the command planted that could run something, moved aside (or not). */
    planted: (marker: Marker, why: string, result: Moved) =>
      `[Garuda: the command ${describe(marker)}; ${why}, which git on this computer ` +
      `would run in ${rel(marker.dir)} (and git status in the project, through a ` +
      `gitlink). ${moved(result, rel(marker.entry), rel(marker.dir))}. To make such a ` +
      `repository, ${OUTSIDE}.]`,
    /** A folder whose name is not UTF-8 (`path` shows it with \\x escapes), moved aside (or not). */
    unnamed: (path: string, result: Moved) =>
      `[Garuda: there is a folder ${rel(path)} whose name is not UTF-8 (each byte that is not printable ASCII ` +
      `shown as \\xNN); the git guard cannot watch or scan inside it, so a git repository planted there could make ` +
      `git on this computer run a program. ${moved(result, rel(path), rel(dirname(path)))}. To keep such a folder ` +
      `in the project, give it a UTF-8 name.]`,
    /** A commondir or config.worktree made in a known repository's git folder. */
    redirect: (path: string, name: string, pointsAt: string, repoDir: string, result: Moved) => {
      const effect =
        name === "commondir"
          ? "would make git on this computer take its config and hooks from another folder"
          : "is config git on this computer would read, and it sets what runs programs";
      return (
        `[Garuda: the command made ${rel(path)}${pointsAt}, which ${effect}; ` +
        `${moved(result, rel(path), rel(repoDir))}. To change a repository's config, ` +
        `${OUTSIDE}.]`
      );
    },
    /** A submodule's config the command changed to run something, put back (or not). */
    config: (path: string, why: string | undefined, restored: { error?: string }) => {
      const done = restored.error
        ? `Garuda could not put it back (${restored.error}): tell the user to check it before running git`
        : "Garuda put it back as it was";
      return (
        `[Garuda: the command changed ${rel(path)} (it ` +
        `${why?.replace(/^sets/, "set")}), config git on this computer reads in the ` +
        `submodule and through git status in the project; ${done}. To change a ` +
        `submodule's config, ${OUTSIDE}.]`
      );
    },
    /** A rebase's or cherry-pick's todo list left with exec lines. */
    todo: (path: string) =>
      `[Garuda: the command left ${rel(path)} with exec lines: \`git ` +
      `${path.includes("rebase") ? "rebase" : "cherry-pick"} --continue\` on this ` +
      `computer would run those commands outside the sandbox. Continue it in the ` +
      `sandbox, or tell the user to read that file first.]`,
    /** The same thing made again and again by one command. */
    again: (key: string, times: number) =>
      `[Garuda: the command made ${rel(key)} ${times - 1} more ` +
      `time${times > 2 ? "s" : ""}; each was moved to ${QUARANTINE_DIR} too.]`,
    /** A subtree changed so fast that the guard scans it instead of watching it (storm.ts). */
    stormed: (top: string, events: number) =>
      `[Garuda: ${top === root ? "the project folder (.)" : rel(top)} changes so fast ` +
      `(${groupedCount(events)} changes within a second) that the git guard stopped ` +
      `watching it, so that it keeps up with the rest of the project and other ` +
      `sessions are not held up: it scans ${rel(top)} instead, every few seconds ` +
      `while a command runs and when each ends, so a git repository planted there is ` +
      `moved aside then, not the moment it appears. It is watched again when a ` +
      `command next starts after all have ended.]`,
    /** A project past the folders one walk looks at. */
    truncated: (maxFolders: number) =>
      `[Garuda: this project has more folders than the git guard looks at (it walks ` +
      `the first ${groupedCount(maxFolders)}, breadth first); a git repository a ` +
      `command plants deeper than that is not looked for. Open a smaller project ` +
      `folder, or check with git status outside the sandbox.]`,
  };
}

/**
 * Part of the tree is scanned instead of watched, and why (undefined: all is watched, or there is no inotify at all, as
 * on macOS).
 */
export function coverageNote(watch: TreeWatch, maxWatches: number): string | undefined {
  if (watch.unwatched === 0 || watch.shortOf === undefined) return undefined;
  const why =
    watch.shortOf === "share"
      ? `Garuda's share of this system's inotify watches is used up (it takes at most ` +
        `${groupedCount(maxWatches)} for all its projects, so that the editor and dev ` +
        `servers keep the rest of fs.inotify.max_user_watches)`
      : watch.shortOf === "kernel"
        ? "this system's inotify watches are used up (fs.inotify.max_user_watches)"
        : "no inotify instance was left for it (other programs hold all of fs.inotify.max_user_instances)";
  const raise =
    watch.shortOf === "instance"
      ? "It tries again as each command starts and every few seconds while one runs, " +
        "and watches the project once it gets one; raising " +
        "fs.inotify.max_user_instances, or closing what holds them, lets it."
      : "Raising fs.inotify.max_user_watches lets it watch them all.";
  return (
    `[Garuda: the git guard cannot watch all of this project: ${why}. About ` +
    `${groupedCount(watch.unwatchedFolders)} folders are scanned instead of ` +
    `watched, when each command starts and ends and every few seconds while one ` +
    `runs: a git repository a command plants there is moved aside then, not the ` +
    `moment it appears. ${raise}]`
  );
}
