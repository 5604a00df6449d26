// The keys of a git config file's text, as git itself parses them (no second opinion on what git
// reads). `git config` runs as a child process that is awaited, never waited for on the event
// loop: a session's guard judging a planted repository must not stop every other session.
// Texts seen before are answered from a small cache (a command that writes the same config again
// and again costs one run of git).

export type ConfigKeys = Array<[key: string, value: string]>;
/** The keys of a config text, or undefined when git cannot parse it (or is not there). */
export type ConfigParser = (text: string) => Promise<ConfigKeys | undefined>;

const CACHE = 256;
/** Longest a `git config` run may take: a config git cannot parse in that time is taken as unreadable. */
const GIT_CONFIG_MS = 5_000;

/** The environment `git config --file -` runs in: no system or global config, no pager, no prompts. */
const GIT_ENV = {
  PATH: "/usr/bin:/bin",
  HOME: "/nonexistent",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_PAGER: "cat",
  GIT_CEILING_DIRECTORIES: "/",
  LC_ALL: "C",
};

async function parseWithGit(git: string, text: string): Promise<ConfigKeys | undefined> {
  const child = Bun.spawn([git, "config", "--file", "-", "--list", "--null", "--no-includes"], {
    stdin: Buffer.from(text),
    stdout: "pipe",
    stderr: "ignore",
    cwd: "/",
    env: GIT_ENV,
    timeout: GIT_CONFIG_MS,
  });
  const [out, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
  if (code !== 0) return undefined;
  return out
    .split("\0")
    .filter(Boolean)
    .map((item): [string, string] => {
      const cut = item.indexOf("\n");
      return cut < 0 ? [item, ""] : [item.slice(0, cut), item.slice(cut + 1)];
    });
}

/** A parser of config texts by `git` (a path), with its cache; without git every non-empty text is unreadable. */
export function gitConfigParser(git: string | undefined): ConfigParser {
  const cache = new Map<string, Promise<ConfigKeys | undefined>>();
  return (text) => {
    const known = cache.get(text);
    if (known) return known;
    const keys =
      text.trim() === ""
        ? Promise.resolve<ConfigKeys>([])
        : git
          ? parseWithGit(git, text).catch(() => undefined)
          : Promise.resolve(undefined);
    // The oldest entry goes first (a Map keeps insertion order).
    if (cache.size >= CACHE) cache.delete(cache.keys().next().value as string);
    cache.set(text, keys);
    return keys;
  };
}
