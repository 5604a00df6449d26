import { writeFileAtomic } from "../files/atomicWrite.ts";
import { readRegularFile } from "../files/regularFile.ts";
import { ConfigError } from "../errors/configError.ts";

/** A credentials file is a handful of keys; anything bigger is not one. */
const MAX_CREDENTIALS_BYTES = 64 * 1024;
const KEY_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export type Credentials = Record<string, string>;

/** The file's bytes; undefined when there is none. Anything but the user's own private regular file is an error. */
function readOwnFile(path: string): Buffer | undefined {
  // noFollow: a symbolic link planted at this path is refused, not followed.
  const read = readRegularFile(path, { maxBytes: MAX_CREDENTIALS_BYTES, noFollow: true, own: { deniedMode: 0o077 } });
  if ("bytes" in read) return read.bytes;
  switch (read.problem) {
    case "missing":
      return undefined;
    case "link":
      throw new ConfigError(
        path,
        "is a symbolic link; Garuda reads keys only from a regular file",
        "Replace it with the file itself (garuda setup writes one)",
      );
    case "folder":
    case "not_regular":
      throw new ConfigError(path, "is not a regular file", "Remove it and run `garuda setup`");
    case "not_own":
      throw new ConfigError(
        path,
        "belongs to another user",
        `Remove it and run \`garuda setup\`, or take ownership of it`,
      );
    case "open_mode":
      throw new ConfigError(
        path,
        `can be read by other users (mode ${(read.mode & 0o777).toString(8).padStart(3, "0")})`,
        `Run: chmod 600 ${path}`,
      );
    case "too_big":
      throw new ConfigError(path, `is larger than ${MAX_CREDENTIALS_BYTES} bytes`, "Check that it is the right file");
    case "unreadable":
      throw new ConfigError(path, `cannot be read (${read.code})`, "Check its owner and permissions");
  }
}

/**
 * Reads ~/.garuda/credentials: a JSON object of key names (the provider's apiKeyEnv) to keys.
 * Absent is fine. Anything unsafe or malformed is an error that names the file; a key's value
 * never appears in a message.
 */
export function readCredentials(path: string): Credentials | undefined {
  const bytes = readOwnFile(path);
  if (bytes === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString("utf8"));
  } catch {
    // The parser's message may quote the text, which holds keys: say only where the problem is.
    throw new ConfigError(
      path,
      "is not valid JSON",
      "Fix it, or move it aside and run `garuda setup` to write a new one",
    );
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new ConfigError(
      path,
      'must be a JSON object such as {"ANTHROPIC_API_KEY": "…"}',
      "Fix it, or move it aside and run `garuda setup` to write a new one",
    );
  }
  const credentials: Credentials = {};
  for (const [name, value] of Object.entries(parsed)) {
    if (!KEY_NAME.test(name))
      throw new ConfigError(
        path,
        `"${name}" is not a key name (letters, digits and _)`,
        "Fix it, or move it aside and run `garuda setup` to write a new one",
      );
    if (typeof value !== "string")
      throw new ConfigError(
        path,
        `the value of ${name} must be a string`,
        "Fix it, or move it aside and run `garuda setup` to write a new one",
      );
    credentials[name] = value;
  }
  return credentials;
}

/** Writes the whole credentials file atomically: 0600, in a 0700 folder. */
export function writeCredentials(path: string, credentials: Credentials): void {
  writeFileAtomic(path, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600, dirMode: 0o700 });
}

/** Sets one key and keeps every other. */
export function saveCredential(path: string, name: string, key: string): void {
  if (!KEY_NAME.test(name)) throw new ConfigError(path, `"${name}" is not a key name`);
  writeCredentials(path, { ...(readCredentials(path) ?? {}), [name]: key });
}
