// registry/agent.json and registry/icon.svg against the ACP Registry's published rules
// (agentclientprotocol/registry: agent.schema.json, .github/workflows/build_registry.py), and
// the registry's auth check (verify_agents.py --auth-check → client.py run_auth_check) run
// against the compiled binary exactly as the checker runs it: a fresh HOME, a bare environment,
// one `initialize` that declares Terminal Auth only in the older `_meta["terminal-auth"]` form.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import {
  ROOT,
  TARGETS,
  type Target,
  archiveName,
  binaryName,
  checkVersions,
  findTarget,
} from "../../scripts/buildTargets.ts";
import { garudaBinary } from "../support/garudaBinary.ts";
import { makeTempDir } from "../support/tempDir.ts";

const AGENT_JSON = join(ROOT, "registry/agent.json");
const ICON = join(ROOT, "registry/icon.svg");

// The registry's rules (agent.schema.json@172d503 and build_registry.py).
const REQUIRED = ["id", "name", "version", "description", "distribution"];
const KNOWN_FIELDS = new Set([...REQUIRED, "repository", "website", "authors", "license", "license_url", "icon"]);
const DISTRIBUTION_TYPES = new Set(["binary", "npx", "uvx"]);
const PLATFORMS = new Set([
  "darwin-aarch64",
  "darwin-x86_64",
  "linux-aarch64",
  "linux-x86_64",
  "windows-aarch64",
  "windows-x86_64",
]);
const TARGET_FIELDS = new Set(["archive", "cmd", "args", "env", "sha256"]);
const REJECTED_ARCHIVES = [".dmg", ".pkg", ".deb", ".rpm", ".msi", ".appimage"];
const ACCEPTED_ARCHIVES = [".zip", ".tar.gz", ".tgz", ".tar.bz2", ".tbz2"];
const ICON_SIZE = 16;
const ICON_PAINT = new Set(["currentcolor", "none", "inherit"]);

/** The registry's platform name → our build target (scripts/buildTargets.ts). */
const TARGET_OF: Record<string, string> = {
  "darwin-aarch64": "darwin-arm64",
  "darwin-x86_64": "darwin-x64",
  "linux-aarch64": "linux-arm64",
  "linux-x86_64": "linux-x64",
  "windows-x86_64": "windows-x64",
};

interface BinaryTarget {
  archive: string;
  cmd: string;
  args?: string[];
  env?: Record<string, string>;
  sha256?: string;
}

interface AgentJson {
  id: string;
  name: string;
  version: string;
  description: string;
  repository?: string;
  website?: string;
  authors?: string[];
  license?: string;
  license_url?: string;
  distribution: { binary?: Record<string, BinaryTarget>; npx?: unknown; uvx?: unknown };
}

const agent = JSON.parse(readFileSync(AGENT_JSON, "utf8")) as AgentJson;
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string; license: string };

function isHttpsUrl(value: unknown): boolean {
  if (typeof value !== "string") return false;
  try {
    return new URL(value).protocol === "https:";
  } catch {
    return false;
  }
}

describe("registry/agent.json, the registry's field rules", () => {
  test("required fields, known fields only, their types", () => {
    for (const field of REQUIRED) expect(agent).toHaveProperty(field);
    expect(Object.keys(agent).filter((key) => !KNOWN_FIELDS.has(key))).toEqual([]);
    // The build sets "icon" from icon.svg; an entry must not carry its own.
    expect(agent).not.toHaveProperty("icon");
    expect(agent.id).toMatch(/^[a-z][a-z0-9-]*$/);
    expect(agent.name.length).toBeGreaterThan(0);
    expect(agent.description.length).toBeGreaterThan(0);
    for (const field of ["repository", "website", "license_url"] as const) {
      if (agent[field] !== undefined) expect(isHttpsUrl(agent[field])).toBe(true);
    }
    if (agent.authors !== undefined)
      expect(agent.authors.every((a) => typeof a === "string" && a.length > 0)).toBe(true);
  });

  test("the version is strict semver and the release's: package.json and src/version.ts", () => {
    expect(agent.version).toMatch(/^[0-9]+\.[0-9]+\.[0-9]+$/);
    expect(agent.version).toBe(pkg.version);
    expect(agent.version).toBe(checkVersions());
  });

  test("the licence is the package's SPDX id", () => {
    expect(agent.license).toBe(pkg.license);
  });

  test("a binary distribution only, with known platforms and target fields", () => {
    expect(Object.keys(agent.distribution).every((type) => DISTRIBUTION_TYPES.has(type))).toBe(true);
    expect(Object.keys(agent.distribution)).toEqual(["binary"]);
    const binary = agent.distribution.binary ?? {};
    expect(Object.keys(binary).length).toBeGreaterThan(0);
    for (const [platform, entry] of Object.entries(binary)) {
      expect(PLATFORMS.has(platform)).toBe(true);
      expect(Object.keys(entry).filter((key) => !TARGET_FIELDS.has(key))).toEqual([]);
      expect(typeof entry.cmd).toBe("string");
      if (entry.sha256 !== undefined) expect(entry.sha256).toMatch(/^[a-fA-F0-9]{64}$/);
      if (entry.env !== undefined) expect(Object.values(entry.env).every((v) => typeof v === "string")).toBe(true);
    }
  });

  test("Linux and macOS on both CPUs; no native Windows entry (that binary only says to use WSL)", () => {
    const platforms = Object.keys(agent.distribution.binary ?? {}).sort();
    expect(platforms).toEqual(["darwin-aarch64", "darwin-x86_64", "linux-aarch64", "linux-x86_64"]);
  });

  test("every archive is the release asset scripts/buildTargets.ts names, for the same version", () => {
    const produced = new Set(TARGETS.map((t) => archiveName(agent.version, t)));
    const repository = agent.repository as string;
    expect(repository).toMatch(/^https:\/\/github\.com\/[^/]+\/[^/]+$/);
    for (const [platform, entry] of Object.entries(agent.distribution.binary ?? {})) {
      const target = findTarget(TARGET_OF[platform] ?? "") as Target;
      expect(target).toBeDefined();
      // The registry picks one archive per platform: the glibc build with the full instruction set.
      expect(target.musl).toBe(false);
      expect(target.baseline).toBe(false);
      const name = archiveName(agent.version, target);
      expect(produced.has(name)).toBe(true);
      expect(entry.archive).toBe(`${repository}/releases/download/v${agent.version}/${name}`);
      // The registry's own checks: no /latest/, the version read from the URL, the archive type.
      expect(entry.archive).not.toContain("/latest/");
      expect(/\/(?:download|releases)\/v?([\d.]+)\//.exec(entry.archive)?.[1]).toBe(agent.version);
      expect(REJECTED_ARCHIVES.some((ext) => entry.archive.toLowerCase().endsWith(ext))).toBe(false);
      expect(ACCEPTED_ARCHIVES.some((ext) => entry.archive.toLowerCase().endsWith(ext))).toBe(true);
      // The archive holds the binary at its top level (scripts/build.ts); the registry runs `cmd args`.
      expect(entry.cmd).toBe(`./${binaryName(target.os)}`);
      expect(entry.args).toEqual(["acp"]);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// The icon

interface Tag {
  name: string;
  attributes: Record<string, string>;
  text: string;
}

/** The elements of a small SVG file: each opening tag's name, attributes and the text after it. */
function svgElements(source: string): Tag[] {
  const tags: Tag[] = [];
  const pattern = /<([A-Za-z][\w:.-]*)((?:\s+[\w:.-]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*\/?>([^<]*)/g;
  for (const match of source.matchAll(pattern)) {
    const attributes: Record<string, string> = {};
    for (const attr of (match[2] ?? "").matchAll(/([\w:.-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) {
      attributes[attr[1] as string] = attr[2] ?? attr[3] ?? "";
    }
    tags.push({ name: (match[1] as string).replace(/^.*:/, ""), attributes, text: match[3] ?? "" });
  }
  return tags;
}

/** Every fill and stroke value of the icon: attributes, inline styles and <style> rules. */
function paints(tags: Tag[]): string[] {
  const found: string[] = [];
  for (const tag of tags) {
    for (const key of ["fill", "stroke"])
      if (tag.attributes[key] !== undefined) found.push(tag.attributes[key] as string);
    for (const declaration of (tag.attributes.style ?? "").split(";")) {
      const [name, value] = declaration.split(":");
      if (value !== undefined && /^\s*(fill|stroke)\s*$/i.test(name ?? "")) found.push(value);
    }
    if (tag.name === "style")
      for (const rule of tag.text.matchAll(/\b(?:fill|stroke)\s*:\s*([^;}\s]+)/gi)) found.push(rule[1] as string);
  }
  return found.map((value) => value.trim().toLowerCase());
}

describe("registry/icon.svg, the registry's icon rules", () => {
  const source = readFileSync(ICON, "utf8");
  const tags = svgElements(source);

  test("an <svg> root, 16 × 16 in width, height and viewBox", () => {
    expect(source.trimStart().startsWith("<svg")).toBe(true);
    const root = tags[0] as Tag;
    expect(root.name).toBe("svg");
    expect(root.attributes.xmlns).toBe("http://www.w3.org/2000/svg");
    expect(Number(root.attributes.width)).toBe(ICON_SIZE);
    expect(Number(root.attributes.height)).toBe(ICON_SIZE);
    expect(root.attributes.viewBox?.trim().split(/\s+/).map(Number)).toEqual([0, 0, ICON_SIZE, ICON_SIZE]);
  });

  test("monochrome: every fill and stroke is currentColor, none or inherit, and currentColor is used", () => {
    const values = paints(tags);
    expect(values.length).toBeGreaterThan(0);
    expect(values.filter((value) => !ICON_PAINT.has(value))).toEqual([]);
    expect(values).toContain("currentcolor");
    // No other way to bring a colour in.
    expect(tags.filter((t) => ["linearGradient", "radialGradient", "image", "foreignObject"].includes(t.name))).toEqual(
      [],
    );
    expect(tags.filter((t) => t.attributes["stop-color"] !== undefined || t.attributes.color !== undefined)).toEqual(
      [],
    );
  });

  test("no comments (they break the registry's MDX pages), no scripts, well-formed tags", () => {
    expect(source).not.toContain("<!--");
    expect(tags.some((t) => t.name === "script")).toBe(false);
    // Every opening tag was read by the element pattern: the file has no construct it skipped.
    const opening = source.match(/<[A-Za-z]/g)?.length ?? 0;
    expect(tags.length).toBe(opening);
    expect(source.trimEnd().endsWith("</svg>")).toBe(true);
  });

  test("the rules catch what the registry rejects (negative controls)", () => {
    const coloured = svgElements(
      '<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 16 ' +
        '16"><path fill="#ff0000" d="M0 0h16v16z"/></svg>',
    );
    expect(paints(coloured).filter((v) => !ICON_PAINT.has(v))).toEqual(["#ff0000"]);
    const styled = svgElements(
      '<svg width="16" height="16"><style>.a{stroke: red}</style><path style="fill: blue" d="M0 0"/></svg>',
    );
    expect(paints(styled).sort()).toEqual(["blue", "red"]);
  });
});

// ---------------------------------------------------------------------------------------------
// The registry's auth check, against the compiled binary

let work = "";
let binary = "";

/** client.py's passthrough: only these variables reach the agent, plus TERM=dumb and a fresh HOME. */
const PASSTHROUGH = [
  "CI",
  "NPM_CONFIG_CACHE",
  "NODE_EXTRA_CA_CERTS",
  "PATH",
  "REQUESTS_CA_BUNDLE",
  "SSL_CERT_DIR",
  "SSL_CERT_FILE",
  "TMP",
  "TMPDIR",
  "TEMP",
  "UV_CACHE_DIR",
  "XDG_CACHE_HOME",
  "XDG_CONFIG_HOME",
];

interface AuthMethod {
  id?: string;
  name?: string;
  type?: string;
  description?: string;
  args?: string[];
  _meta?: Record<string, unknown>;
}

/** client.py parse_auth_methods: the type field, else from _meta, else "agent". */
function methodType(method: AuthMethod): string {
  if (method.type) return method.type;
  if (method._meta && "terminal-auth" in method._meta) return "terminal";
  if (method._meta && "agent-auth" in method._meta) return "agent";
  return "agent";
}

async function firstLine(stream: ReadableStream<Uint8Array>, timeoutMs: number): Promise<string> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let text = "";
  const deadline = Date.now() + timeoutMs;
  try {
    while (!text.includes("\n")) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no line on stdout in ${timeoutMs} ms`);
      const next = await Promise.race([reader.read(), Bun.sleep(left).then(() => "late" as const)]);
      if (next === "late") throw new Error(`no line on stdout in ${timeoutMs} ms`);
      if (next.done) throw new Error(`stdout closed before a line; got ${JSON.stringify(text)}`);
      text += decoder.decode(next.value, { stream: true });
    }
  } finally {
    reader.releaseLock();
  }
  return text.slice(0, text.indexOf("\n"));
}

describe("the registry's auth check (client.py run_auth_check)", () => {
  beforeAll(
    async () => {
      work = makeTempDir("garuda-registry-");
      binary = await garudaBinary();
    },
    { timeout: 180_000 },
  );

  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  test("initialize with only _meta['terminal-auth']: a usable terminal method, in both forms", async () => {
    const home = makeTempDir("home-", { under: work });
    const cwd = makeTempDir("cwd-", { under: work });
    const env: Record<string, string> = { TERM: "dumb", HOME: home };
    for (const name of PASSTHROUGH) if (process.env[name]) env[name] = process.env[name] as string;
    const proc = Bun.spawn([binary, "acp"], { cwd, env, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
    const stderr = new Response(proc.stderr).text();
    // Exactly what the checker sends.
    const initialize = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: 1,
        clientInfo: { name: "ACP Registry Validator", version: "1.0.0" },
        clientCapabilities: {
          terminal: true,
          fs: { readTextFile: true, writeTextFile: true },
          _meta: { terminal_output: true, "terminal-auth": true },
        },
      },
    };
    proc.stdin.write(`${JSON.stringify(initialize)}\n`);
    await proc.stdin.flush();

    const line = await firstLine(proc.stdout, 60_000);
    // A non-JSON line is what the checker reports as an "ACP spec violation".
    const response = JSON.parse(line) as {
      jsonrpc: string;
      id: number;
      result?: { authMethods?: AuthMethod[] };
      error?: unknown;
    };
    expect(response.jsonrpc).toBe("2.0");
    expect(response.id).toBe(1);
    expect(response.error).toBeUndefined();

    // validate_auth_methods: non-empty, at least one of type agent or terminal.
    const methods = response.result?.authMethods ?? [];
    expect(methods.length).toBeGreaterThan(0);
    expect(methods.some((m) => ["agent", "terminal"].includes(methodType(m)))).toBe(true);

    // Garuda's method: the standard Terminal Auth form and the older _meta form with its command.
    const setup = methods.find((m) => m.id === "garuda-setup");
    expect(setup).toMatchObject({ type: "terminal", name: "Set up Garuda", args: ["setup"] });
    expect(setup?._meta?.["terminal-auth"]).toEqual({
      command: binary,
      args: ["acp", "setup"],
      label: "Set up Garuda",
    });

    // The editor closes the agent: it exits 0.
    proc.stdin.end();
    expect(await proc.exited).toBe(0);
    expect(await stderr).not.toContain('"jsonrpc"');

    // The legacy command really is Garuda's setup: without a terminal it says so and exits 1.
    const legacy = setup?._meta?.["terminal-auth"] as { command: string; args: string[] };
    const run = Bun.spawn([legacy.command, ...legacy.args], {
      cwd,
      env,
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    const [runOut, runErr, runCode] = await Promise.all([
      new Response(run.stdout).text(),
      new Response(run.stderr).text(),
      run.exited,
    ]);
    expect(runCode).toBe(1);
    expect(`${runOut}${runErr}`).toContain("needs a terminal");
  }, 90_000);
});
