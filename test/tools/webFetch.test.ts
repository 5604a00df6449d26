// web_fetch against a loopback HTTP server started here (allowLocalhost, and a resolver that
// maps test host names): HTML → Markdown, redirects (a new host asks), size caps, refused
// private addresses, text-only, paging and its cache, timeouts, and the URL rules.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { gzipSync } from "node:zlib";
import type { Decision, PermissionRequest } from "../../src/permission/types.ts";
import type { ToolContext } from "../../src/tools/types.ts";
import { addressProblem, normalizeUrl } from "../../src/tools/webAddress.ts";
import { requestHop } from "../../src/tools/webHttp.ts";
import { webFetchTool, type WebFetchOptions } from "../../src/tools/webFetch.ts";
import { runTool } from "../support/toolFixtures.ts";

const PAGE =
  `<!doctype html><html><head><title>Garuda &amp; ` +
  `friends</title><style>body{color:red}</style>
<script>window.secret = "script ` +
  `text"</script></head><body>
<nav><a href="/home">Home</a> | <a ` +
  `href="/about">About</a></nav>
<main><h1>Release notes</h1><p>Version ` +
  `<b>2.0</b> adds <a href="/docs/undo">undo</a> and <a ` +
  `href="https://other.example/x">more</a>.</p>
<ul><li>first</li><li>second</li></ul><pre><code>bun ` +
  `test</code></pre><img src="/logo.png" alt="logo"></main>
<footer>Copyright ` +
  `footer text</footer></body></html>`;
const LONG = Array.from({ length: 7_000 }, (_, i) => `line ${String(i).padStart(4, "0")}`).join("");

let server: ReturnType<typeof Bun.serve>;
let base: string;
const hits = new Map<string, number>();

beforeAll(() => {
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const url = new URL(request.url);
      hits.set(url.pathname, (hits.get(url.pathname) ?? 0) + 1);
      const port = server.port;
      switch (url.pathname) {
        case "/page.html":
          return new Response(PAGE, { headers: { "content-type": "text/html; charset=utf-8" } });
        case "/redirect":
          return Response.redirect(`http://127.0.0.1:${port}/page.html`, 302);
        case "/relative-redirect":
          return new Response(null, { status: 301, headers: { location: "/page.html#section" } });
        case "/to-other-host":
          return Response.redirect(`http://localhost:${port}/page.html`, 302);
        case "/to-private":
          return Response.redirect("http://private.test/admin", 302);
        case "/loop":
          return new Response(null, {
            status: 302,
            headers: { location: `/loop?n=${Number(url.searchParams.get("n") ?? 0) + 1}` },
          });
        case "/big":
          return new Response(new Uint8Array(6 * 1024 * 1024).fill(97), { headers: { "content-type": "text/plain" } });
        case "/big-stream":
          return new Response(
            new ReadableStream({
              pull(controller) {
                controller.enqueue(new Uint8Array(256 * 1024).fill(98));
              },
            }),
            { headers: { "content-type": "text/plain" } },
          );
        case "/gzip":
          return new Response(gzipSync(Buffer.from("<html><body><p>compressed <i>hello</i></p></body></html>")), {
            headers: { "content-type": "text/html", "content-encoding": "gzip" },
          });
        case "/gzip-bomb":
          return new Response(gzipSync(Buffer.alloc(6 * 1024 * 1024, 32)), {
            headers: { "content-type": "text/plain", "content-encoding": "gzip" },
          });
        case "/image.png":
          return new Response(new Uint8Array([0x89, 0x50, 0x4e, 0x47]), { headers: { "content-type": "image/png" } });
        case "/long.txt":
          return new Response(LONG, { headers: { "content-type": "text/plain" } });
        case "/data.json":
          return new Response('{"ok":true}', { headers: { "content-type": "application/json" } });
        case "/missing":
          return new Response("<html><body><h1>Not here</h1></body></html>", {
            status: 404,
            headers: { "content-type": "text/html" },
          });
        case "/slow":
          await Bun.sleep(3_000);
          return new Response("late");
        default:
          return new Response("unknown", { status: 500 });
      }
    },
  });
  base = `http://127.0.0.1:${server.port}`;
});
afterAll(() => {
  server.stop(true);
});

const resolve: WebFetchOptions["resolve"] = async (host) => {
  const table: Record<string, string[]> = {
    localhost: ["127.0.0.1"],
    "private.test": ["192.168.7.9"],
    "mixed.test": ["127.0.0.1", "10.0.0.8"],
  };
  const found = table[host];
  if (!found) throw new Error(`getaddrinfo ENOTFOUND ${host}`);
  return found;
};

function context(answer: (request: PermissionRequest) => Decision = () => ({ outcome: "allow", by: "user" })): {
  ctx: ToolContext;
  asked: PermissionRequest[];
} {
  const asked: PermissionRequest[] = [];
  const ctx: ToolContext = {
    root: "/nonexistent-root",
    home: "/nonexistent-home",
    callId: "c1",
    mode: "build",
    signal: new AbortController().signal,
    executor: {} as ToolContext["executor"],
    sandbox: null,
    authorize: async (request) => {
      asked.push(request);
      return answer(request);
    },
    progress: () => {},
    beforeWrite: async () => {},
  };
  return { ctx, asked };
}

const tool = (options: WebFetchOptions = {}) => webFetchTool({ allowLocalhost: true, resolve, ...options });
const fetchWith = (t: ReturnType<typeof tool>, input: Record<string, unknown>, ctx = context().ctx) =>
  runTool(t, input, ctx);

describe("web_fetch: pages", () => {
  test("HTML becomes readable Markdown: chrome stripped, the main part kept, links absolute", async () => {
    const result = await fetchWith(tool(), { url: `${base}/page.html` });
    expect(result.isError).toBeUndefined();
    const output = result.output;
    expect(output).toStartWith(
      `<web_result url="${base}/page.html" type="text/html" title="Garuda &amp; friends">\n[characters 1–`,
    );
    expect(output).toContain("# Release notes");
    expect(output).toContain(
      "Version **2.0** adds [undo](" + base + "/docs/undo) and [more](https://other.example/x).",
    );
    expect(output).toContain("* first\n* second");
    expect(output).toContain("```\nbun test\n```");
    expect(output).toContain(`![logo](${base}/logo.png)`);
    for (const chrome of ["script text", "color:red", "Copyright footer", "About"])
      expect(output).not.toContain(chrome);
    expect(output).toEndWith("</web_result>");
  });

  test("gzip bodies are decompressed; JSON stays as it is", async () => {
    expect((await fetchWith(tool(), { url: `${base}/gzip` })).output).toContain("compressed _hello_");
    const json = await fetchWith(tool(), { url: `${base}/data.json` });
    expect(json.output).toContain('type="application/json"');
    expect(json.output).toContain('\n{"ok":true}\n');
  });

  test("only text: an image is refused", async () => {
    const result = await fetchWith(tool(), { url: `${base}/image.png` });
    expect(result).toEqual({
      output: "The URL returned image/png, not text; web_fetch reads text, HTML, JSON and XML only.",
      isError: true,
    });
  });

  test("an HTTP error is an error with the status and the page's text", async () => {
    const result = await fetchWith(tool(), { url: `${base}/missing` });
    expect(result.isError).toBe(true);
    expect(result.output).toBe(`${base}/missing answered HTTP 404 Not Found.\n# Not here`);
  });
});

describe("web_fetch: redirects", () => {
  test("a redirect on the same host is followed without a question; fragments are dropped", async () => {
    const { ctx, asked } = context();
    const result = await fetchWith(tool(), { url: `${base}/relative-redirect` }, ctx);
    expect(result.output).toStartWith(`<web_result url="${base}/page.html"`);
    expect(result.output).toContain(`(redirected from ${base}/relative-redirect)`);
    expect(asked).toEqual([]);
  });

  test("a redirect to another host asks for that host (a url target); a denial stops there", async () => {
    const denied = context(() => ({ outcome: "deny", by: "user", reason: "The user denied this." }));
    const refused = await fetchWith(tool(), { url: `${base}/to-other-host` }, denied.ctx);
    expect(refused.isError).toBe(true);
    expect(refused.output).toBe(
      `The page redirects to http://localhost:${server.port}/page.html, another host, ` +
        `and fetching from it was not allowed: The user denied this.`,
    );
    expect(denied.asked).toHaveLength(1);
    expect(denied.asked[0]).toMatchObject({
      tool: "web_fetch",
      target: { kind: "url", url: `http://localhost:${server.port}/page.html` },
      title: `Fetch http://localhost:${server.port}/page.html`,
    });

    const allowed = context();
    const followed = await fetchWith(tool(), { url: `${base}/to-other-host` }, allowed.ctx);
    expect(followed.output).toStartWith(`<web_result url="http://localhost:${server.port}/page.html"`);
    expect(allowed.asked).toHaveLength(1);
  });

  test("every hop's address is checked: a redirect to a private address is refused", async () => {
    const result = await fetchWith(tool(), { url: `${base}/to-private` });
    expect(result.isError).toBe(true);
    expect(result.output).toBe(
      "Refused to fetch https://private.test/admin: private.test resolves to " +
        "192.168.7.9, and 192.168.7.9 is a private address, not a public one. web_fetch " +
        "reaches public internet addresses only.",
    );
  });

  test("more than 5 redirects stop", async () => {
    const result = await fetchWith(tool(), { url: `${base}/loop` });
    expect(result.isError).toBe(true);
    expect(result.output).toBe(`${base}/loop redirects more than 5 times; stopped at ${base}/loop?n=5.`);
    expect(hits.get("/loop")).toBe(6);
  });
});

describe("web_fetch: limits and addresses", () => {
  test("a body over 5 MB is refused, whether declared or streamed", async () => {
    const declared = await fetchWith(tool(), { url: `${base}/big` });
    expect(declared).toEqual({ output: "The page is 6 MB, larger than the 5 MB web_fetch reads.", isError: true });
    const streamed = await fetchWith(tool({ maxBytes: 1024 * 1024 }), { url: `${base}/big-stream` });
    expect(streamed).toEqual({
      output: "The page is larger than 1 MB; web_fetch reads at most that much.",
      isError: true,
    });
  });

  test("the 5 MB cap applies after decompression: a small gzip body that inflates past it is refused", async () => {
    const result = await fetchWith(tool(), { url: `${base}/gzip-bomb` });
    expect(result).toEqual({
      output: "The page is larger than 5 MB; web_fetch reads at most that much.",
      isError: true,
    });
  });

  test(
    "the connection goes to the checked addresses only: a name no DNS knows reaches " + "the pinned address",
    async () => {
      const url = new URL(`http://pinned.invalid:${server.port}/data.json`);
      const response = await requestHop({
        url,
        addresses: ["127.0.0.1"],
        signal: AbortSignal.timeout(5_000),
        maxBytes: 1_000,
        userAgent: "test",
      });
      expect(response).toMatchObject({ kind: "body", status: 200, contentType: "application/json" });
    },
  );

  test("private, link-local and (unless allowed) loopback addresses are refused before connecting", async () => {
    const strict = webFetchTool({ resolve });
    expect((await fetchWith(strict, { url: `${base}/page.html` })).output).toBe(
      `Refused to fetch ${base}/page.html: 127.0.0.1 is this computer (loopback). ` +
        `web_fetch reaches public internet addresses only.`,
    );
    expect((await fetchWith(tool(), { url: "http://169.254.169.254/latest/meta-data" })).output).toContain(
      "169.254.169.254 is a linkLocal address",
    );
    expect((await fetchWith(tool(), { url: "http://[::ffff:10.0.0.1]/" })).output).toBe(
      "Refused to fetch https://[::ffff:a00:1]/: ::ffff:a00:1 is a private address, " +
        "not a public one. web_fetch reaches public internet addresses only.",
    );
    // every address of a host must pass, not just the first
    expect((await fetchWith(tool(), { url: "http://mixed.test/" })).output).toContain(
      "mixed.test resolves to 10.0.0.8",
    );
    expect(addressProblem("8.8.8.8", false)).toBeUndefined();
    expect(addressProblem("100.64.1.1", false)).toBe("100.64.1.1 is a carrierGradeNat address, not a public one");
    expect(addressProblem("::1", true)).toBeUndefined();
  });

  test("30 s overall (shortened here): a slow server is given up on", async () => {
    const result = await fetchWith(tool({ timeoutMs: 300 }), { url: `${base}/slow` });
    expect(result).toEqual({ output: `Fetching ${base}/slow took longer than 0.3 s and was stopped.`, isError: true });
  });
});

describe("web_fetch: paging", () => {
  test(
    "a long page comes in parts with [characters a–b of n] and a hint; later parts " + "come from the cache",
    async () => {
      const t = tool();
      const first = await fetchWith(t, { url: `${base}/long.txt` });
      expect(first.output).toContain("[characters 1–30000 of 63000]");
      expect(first.output).toContain(LONG.slice(0, 30_000));
      expect(first.output).toEndWith(
        "[Garuda: the page goes on; call web_fetch with the same url and start: 30000 to read the next part.]",
      );
      const second = await fetchWith(t, { url: `${base}/long.txt`, start: 30_000, max_chars: 1_000 });
      expect(second.output).toContain("[characters 30001–31000 of 63000]");
      expect(second.output).toContain(`\n${LONG.slice(30_000, 31_000)}\n`);
      const last = await fetchWith(t, { url: `${base}/long.txt`, start: 62_000 });
      expect(last.output).toContain("[characters 62001–63000 of 63000]");
      expect(last.output).not.toContain("[Garuda:");
      expect(hits.get("/long.txt")).toBe(1);
      const past = await fetchWith(t, { url: `${base}/long.txt`, start: 63_000 });
      expect(past).toEqual({
        output: "start 63000 is past the end of the page, which has 63000 characters.",
        isError: true,
      });
      expect(t.input.safeParse({ url: base, max_chars: 999 }).success).toBe(false);
      expect(t.input.safeParse({ url: base, max_chars: 100_001 }).success).toBe(false);
    },
  );

  test("the cache expires after its time", async () => {
    let now = 0;
    const t = tool({ now: () => now, cacheTtlMs: 1_000 });
    const before = hits.get("/data.json") ?? 0;
    await fetchWith(t, { url: `${base}/data.json` });
    await fetchWith(t, { url: `${base}/data.json` });
    expect(hits.get("/data.json")).toBe(before + 1);
    now = 5_000;
    await fetchWith(t, { url: `${base}/data.json` });
    expect(hits.get("/data.json")).toBe(before + 2);
  });
});

describe("web_fetch: URL rules, title and permission", () => {
  test("http(s) only, no credentials, fragment dropped, http upgraded except loopback", () => {
    const check = (raw: string) => {
      const result = normalizeUrl(raw);
      return result.ok ? result.url.href : result.error;
    };
    expect(check("ftp://example.com/file")).toBe("web_fetch fetches http and https URLs only, not ftp: URLs.");
    expect(check("https://user:pw@example.com/")).toContain("user name or password");
    expect(check("http://example.com:80/a?b=1#frag")).toBe("https://example.com/a?b=1");
    expect(check("http://localhost:8080/x#y")).toBe("http://localhost:8080/x");
    expect(check("http://127.0.0.2/")).toBe("http://127.0.0.2/");
    expect(check("http://[::1]:3000/")).toBe("http://[::1]:3000/");
    expect(check("not a url")).toContain("is not a valid URL");
  });

  test("title `Fetch <url>`, kind fetch; the permission target is the normalized URL", () => {
    const t = tool();
    expect(
      t.plan(
        { url: "http://example.com/a#b" },
        { root: "/r", home: "/h", sandbox: null, executor: {} as ToolContext["executor"] },
      ).info,
    ).toEqual({ title: "Fetch https://example.com/a", kind: "fetch", locations: [] });
    expect(
      t.plan(
        { url: "http://example.com/a#b" },
        { root: "/r", home: "/h", sandbox: null, executor: {} as ToolContext["executor"] },
      ).permission,
    ).toEqual({
      tool: "web_fetch",
      readOnly: true,
      target: { kind: "url", url: "https://example.com/a" },
      preview: "https://example.com/a",
    });
  });
});
