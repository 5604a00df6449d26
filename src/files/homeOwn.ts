// The home folder's own files: what a session whose root is the home folder (or holds it) must
// not write, although it lies inside the root. They are the files the user's computer runs or
// trusts later without asking — shell and login scripts, ~/.config (autostart, systemd units,
// editors' init files), ~/.local/bin and the other PATH folders, ~/.ssh, ~/.gitconfig, ~/.garuda —
// and there is no knowing every program's file, so the rule is by shape: every entry at the top
// of the home whose name starts with a dot, plus the few plain-named folders that act the same.
// The sandbox (paths.ts) leaves all of them read-only; the permission engine refuses file-tool
// writes to them (decide.ts).
import { isInside } from "./isInside.ts";

/** Plain-named folders at the top of the home that belong to the system, not to a project. */
const HOME_OWN_NAMES: readonly string[] = [
  "bin", // on PATH in most distributions' default ~/.profile
  "Library", // macOS: LaunchAgents, preferences, keychains
  "Applications", // macOS
  "snap", // snaps' own data and settings
];

/** Folders below plain-named entries that shells put on PATH: read-only although their parent is writable. */
export const HOME_BIN_FOLDERS: readonly string[] = ["go/bin"];

const OWN = new Set(HOME_OWN_NAMES.map((name) => name.toLowerCase()));

/** Whether the top-level entry `name` of a home folder is the home's own (a dotfile, ~/bin, ~/Library …). */
export function isHomeOwnName(name: string): boolean {
  return name.startsWith(".") || OWN.has(name.toLowerCase());
}

/** Whether `path` (absolute, normalized) is one of the home's own files or inside one; the home itself is not. */
export function isHomeOwnPath(path: string, home: string): boolean {
  if (path === home || !isInside(path, home)) return false;
  const rest = path.slice(home === "/" ? 1 : home.length + 1);
  const first = rest.split("/")[0] ?? "";
  if (isHomeOwnName(first)) return true;
  return HOME_BIN_FOLDERS.some((bin) => isInside(path, `${home}/${bin}`));
}
