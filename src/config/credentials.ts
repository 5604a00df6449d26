import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { codeOf } from "../errors/caught.ts";
import { writeFileAtomic } from "./atomicWrite.ts";
import { ConfigError } from "../errors/configError.ts";

/** A credentials file is a handful of keys; anything bigger is not one. */
const MAX_CREDENTIALS_BYTES = 64 * 1024;
const KEY_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export type Credentials = Record<string, string>;

function readOwnFile(path: string): Buffer | undefined {
  let fd: number;
  try {
    // O_NOFOLLOW: a symbolic link planted at this path is refused, not followed.
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    const code = codeOf(error);
    if (code === "ENOENT") return undefined;
    if (code === "ELOOP") throw new ConfigError(path, "is a symbolic link; Garuda reads keys only from a regular file", "Replace it with the file itself (garuda setup writes one)");
    throw new ConfigError(path, `cannot be read (${code ?? String(error)})`, "Check its owner and permissions");
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new ConfigError(path, "is not a regular file", "Remove it and run `garuda setup`");
    if (typeof process.getuid === "function" && stat.uid !== process.getuid()) {
      throw new ConfigError(path, "belongs to another user", `Remove it and run \`garuda setup\`, or take ownership of it`);
    }
    if ((stat.mode & 0o077) !== 0) {
      const mode = (stat.mode & 0o777).toString(8).padStart(3, "0");
      throw new ConfigError(path, `can be read by other users (mode ${mode})`, `Run: chmod 600 ${path}`);
    }
    if (stat.size > MAX_CREDENTIALS_BYTES) throw new ConfigError(path, `is larger than ${MAX_CREDENTIALS_BYTES} bytes`, "Check that it is the right file");
    const buffer = Buffer.alloc(stat.size);
    let read = 0;
    while (read < stat.size) {
      const n = readSync(fd, buffer, read, stat.size - read, read);
      if (n === 0) break;
      read += n;
    }
    return buffer.subarray(0, read);
  } finally {
    closeSync(fd);
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
    throw new ConfigError(path, "is not valid JSON", "Fix it, or move it aside and run `garuda setup` to write a new one");
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new ConfigError(path, 'must be a JSON object such as {"ANTHROPIC_API_KEY": "…"}', "Fix it, or move it aside and run `garuda setup` to write a new one");
  }
  const credentials: Credentials = {};
  for (const [name, value] of Object.entries(parsed)) {
    if (!KEY_NAME.test(name)) throw new ConfigError(path, `"${name}" is not a key name (letters, digits and _)`, "Fix it, or move it aside and run `garuda setup` to write a new one");
    if (typeof value !== "string") throw new ConfigError(path, `the value of ${name} must be a string`, "Fix it, or move it aside and run `garuda setup` to write a new one");
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
