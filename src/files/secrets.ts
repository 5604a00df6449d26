// The one list of secrets. The sandbox makes the home and system places unreadable to commands
// (src/sandbox/paths.ts); the permission engine refuses them, and every name pattern, to the file
// tools, and the listing and search tools never show them (src/tools/withheldPaths.ts). So nothing a
// sandboxed command cannot read is readable through a file tool either.
import { realpathSync } from "node:fs";
import { basename, dirname, join } from "node:path";

/**
 * Credentials of common tools and Garuda's own secrets, relative to the home folder. Each covers
 * what is under it. Commands in the sandbox cannot read them; the file tools refuse them.
 */
export const HOME_SECRETS: readonly string[] = [
  ".ssh",
  ".aws",
  ".azure",
  ".gnupg",
  ".kube",
  ".docker",
  ".config/gcloud",
  ".config/gh",
  ".config/git/credentials",
  ".netrc",
  ".npmrc",
  ".pypirc",
  ".git-credentials",
  ".cargo/credentials",
  ".cargo/credentials.toml",
  // Registry, cloud, database and assistant tokens that `grep -r token ~` would otherwise find.
  ".terraform.d/credentials.tfrc.json",
  ".yarnrc.yml",
  ".pgpass",
  ".gradle/gradle.properties",
  ".m2/settings.xml",
  ".gem/credentials",
  ".config/composer/auth.json",
  ".vault-token",
  ".config/github-copilot",
  ".config/hub",
  ".config/rclone/rclone.conf",
  ".local/share/uv/credentials", // `uv auth login`
  "Library/Keychains",
  ".garuda/credentials",
  ".garuda/mcp-auth.json",
  // MCP servers' env and headers, and hook command lines, may hold tokens written out in full.
  ".garuda/mcp.json",
  ".garuda/hooks.json",
  ".claude.json",
  ".claude/.credentials.json",
];

/**
 * Transcripts, audit logs and undo snapshots of every project (this one's too): a command has no
 * use for them (hooks get their input in a file of their own), and they hold what earlier sessions
 * read and wrote, other projects' included. They can hold a great many files, so secretPlaces()
 * lists them last: the identity walk (secretIdentities.ts) is capped, and a cut leaves out these,
 * never a key.
 */
export const HOME_STORES: readonly string[] = [".garuda/sessions", ".garuda/audit", ".garuda/snapshots"];

/** Host sockets that would hand out the machine (a path-based socket stays connectable on a read-only mount). */
export const SYSTEM_SECRETS: readonly string[] = ["/var/run/docker.sock", "/run/docker.sock"];

/**
 * Files that may hold secrets wherever they are, as globs over the absolute path (lower case).
 * The sandbox cannot hide a pattern; a command that names such a file asks first instead.
 */
export const SECRET_NAME_PATTERNS: readonly string[] = [
  "**/.env",
  "**/.env.*",
  "**/.envrc",
  "**/.ssh/**",
  "**/.aws/**",
  "**/.gnupg/**",
  "**/.kube/**",
  "**/.azure/**",
  "**/.config/gcloud/**",
  "**/.config/gh/hosts.yml",
  "**/.docker/config.json",
  "**/.terraform.d/credentials.tfrc.json",
  "**/.npmrc",
  "**/.yarnrc.yml",
  "**/.pypirc",
  "**/.netrc",
  "**/_netrc",
  "**/.git-credentials",
  "**/.pgpass",
  "**/.htpasswd",
  "**/.garuda/credentials",
  "**/credentials.json",
  "**/*.pem",
  "**/*.key",
  "**/*.p12",
  "**/*.pfx",
  "**/*.jks",
  "**/*.keystore",
  "**/id_rsa",
  "**/id_dsa",
  "**/id_ecdsa",
  "**/id_ed25519",
];

/** A place the sandbox hides: its absolute path, and the same in lower case for matching. */
export interface SecretPlace {
  path: string;
  lower: string;
}

/**
 * The secret places of one home folder: HOME_SECRETS under it, SYSTEM_SECRETS, `extra` (the
 * folders the sandbox hides for this session, such as $XDG_RUNTIME_DIR), and last HOME_STORES.
 * Each also by its real path when a link leads elsewhere (a ~/.claude kept in a dotfiles folder),
 * since the sandbox hides the real place. Read once per session.
 */
export function secretPlaces(home: string, extra: readonly string[] = []): readonly SecretPlace[] {
  const places = new Map<string, SecretPlace>();
  const add = (path: string) => places.set(path.toLowerCase(), { path, lower: path.toLowerCase() });
  const base = home.replace(/\/+$/, "");
  const listed = [
    ...HOME_SECRETS.map((entry) => join(base, entry)),
    ...SYSTEM_SECRETS,
    ...extra,
    ...HOME_STORES.map((entry) => join(base, entry)),
  ];
  for (const path of listed) {
    add(path);
    add(realPlace(path));
  }
  return [...places.values()];
}

/** The real path of `path`, or of its nearest existing folder with the rest of the path appended. */
function realPlace(path: string): string {
  const rest: string[] = [];
  for (let current = path; ; current = dirname(current)) {
    try {
      return join(realpathSync(current), ...rest);
    } catch {
      if (dirname(current) === current) return path;
      rest.unshift(basename(current));
    }
  }
}

/** A secret's path as messages name it: `~/…` under the home folder, else as it is. */
export function shownSecret(path: string, home: string): string {
  const base = home.replace(/\/+$/, "");
  return path.startsWith(`${base}/`) ? `~/${path.slice(base.length + 1)}` : path;
}

/** The secret place `lowerPath` (absolute, lower case) is, or is inside; undefined when none. */
export function secretPlaceOf(lowerPath: string, places: readonly SecretPlace[]): SecretPlace | undefined {
  for (const place of places) {
    const { lower } = place;
    if (lowerPath === lower || (lowerPath.startsWith(lower) && lowerPath.charCodeAt(lower.length) === 47)) return place;
  }
  return undefined;
}
