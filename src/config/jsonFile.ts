import type { z } from "zod";
import { messageOf } from "../errors/caught.ts";
import { ConfigError } from "../errors/configError.ts";
import { readRegularFile } from "../files/regularFile.ts";

/** Size above which a config file is refused rather than parsed. */
const MAX_CONFIG_BYTES = 1024 * 1024;

/**
 * Reads a file's text; undefined when it does not exist, a ConfigError for any other failure. A
 * pipe, socket or device is refused, never read (a FIFO would wait for a writer: files/regularFile.ts).
 */
export function readConfigText(path: string, maxBytes = MAX_CONFIG_BYTES): string | undefined {
  const read = readRegularFile(path, { maxBytes });
  if ("bytes" in read) return read.bytes.toString("utf8");
  switch (read.problem) {
    case "missing":
      return undefined;
    case "folder":
      throw new ConfigError(path, "is a folder, not a file", "Remove or rename it");
    case "not_regular":
      throw new ConfigError(path, "is not a regular file (a pipe, socket or device)", "Remove it, or put a file there");
    case "too_big":
      throw new ConfigError(path, `is larger than ${maxBytes} bytes`, "Check that it is the right file");
    default:
      throw new ConfigError(
        path,
        `cannot be read (${read.problem === "unreadable" ? read.code : read.problem})`,
        "Check its permissions",
      );
  }
}

/** Parses JSON text, naming the file and the position of a syntax error. */
export function parseConfigJson(path: string, text: string, fix = "Fix the file or remove it"): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const detail = messageOf(error);
    throw new ConfigError(path, `is not valid JSON (${detail})`, fix);
  }
}

/**
 * Formats zod issues as "at a.b.c: message" lines, one per issue (the first five). With
 * `nameUnknownKeys` (the strict project files), an unknown key reads `unknown key "a.b.c"`.
 */
export function describeIssues(error: z.ZodError, { nameUnknownKeys = false } = {}): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => {
      const at = issue.path.map(String);
      if (nameUnknownKeys && issue.code === "unrecognized_keys")
        return issue.keys.map((key) => `unknown key "${[...at, key].join(".")}"`).join("; ");
      return `at ${at.length > 0 ? at.join(".") : "the top level"}: ${issue.message}`;
    })
    .join("; ");
}

/** Reads, parses and validates a JSON config file. Undefined when the file does not exist. */
export function readJsonConfig<T extends z.ZodType>(path: string, schema: T, fix: string): z.infer<T> | undefined {
  const text = readConfigText(path);
  if (text === undefined) return undefined;
  const result = schema.safeParse(parseConfigJson(path, text, fix));
  if (!result.success) throw new ConfigError(path, `is not valid (${describeIssues(result.error)})`, fix);
  return result.data;
}
