// One HTTP(S) request of web_fetch, connected to addresses checked beforehand (the socket's DNS
// lookup returns exactly those), with the body capped as it arrives (declared and decompressed
// size) and only text accepted. Redirects are returned, not followed: the caller checks each hop.
import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import type { Readable } from "node:stream";
import zlib from "node:zlib";
import { bareHost } from "./webAddress.ts";

export class FetchError extends Error {
  override name = "FetchError";
}

export interface HopRequest {
  url: URL;
  /** Checked addresses; the connection goes to one of these. */
  addresses: string[];
  signal: AbortSignal;
  maxBytes: number;
  userAgent: string;
}

export type HopResponse =
  | { kind: "redirect"; status: number; location: string }
  | { kind: "body"; status: number; statusText: string; contentType: string; body: Uint8Array };

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

const TEXT_TYPES = [
  /^text\//,
  new RegExp(
    String.raw`^application\/(json|xml|xhtml\+xml|javascript|ecmascript|x-javascript|x-yaml|yaml|toml|x-sh|sql` +
      String.raw`|graphql|x-ndjson|ld\+json|x-httpd-php|markdown)$`,
  ),
  /^[a-z]+\/[a-z0-9.+-]+\+(json|xml)$/,
];

export function isTextType(contentType: string): boolean {
  const type = contentType.split(";")[0]?.trim().toLowerCase() ?? "";
  return TEXT_TYPES.some((pattern) => pattern.test(type));
}

/** No declared type: text when the start has no NUL byte. */
function looksLikeText(body: Uint8Array): boolean {
  return !body.subarray(0, 1024).includes(0);
}

function megabytes(bytes: number): string {
  return `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`;
}

function decoderFor(
  encoding: string | string[] | undefined,
): zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress | undefined | "unknown" {
  const name = String(encoding ?? "")
    .trim()
    .toLowerCase();
  if (name === "" || name === "identity") return undefined;
  if (name === "gzip" || name === "x-gzip") return zlib.createGunzip();
  if (name === "deflate") return zlib.createInflate();
  if (name === "br") return zlib.createBrotliDecompress();
  return "unknown";
}

/** Reads a body up to `maxBytes` (after decompression), or fails. */
function readCapped(stream: Readable, maxBytes: number, onTooBig: () => void): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    stream.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        onTooBig();
        reject(new FetchError(`The page is larger than ${megabytes(maxBytes)}; web_fetch reads at most that much.`));
        stream.destroy();
        return;
      }
      chunks.push(chunk);
    });
    stream.on("end", () => resolve(new Uint8Array(Buffer.concat(chunks))));
    stream.on("error", (error) =>
      reject(error instanceof FetchError ? error : new FetchError(`Reading the page failed: ${error.message}`)),
    );
  });
}

/** What to do with a response: a redirect, a failure, or the capped, decompressed body. */
function handleResponse(res: http.IncomingMessage, request: HopRequest, abort: () => void): Promise<HopResponse> {
  const status = res.statusCode ?? 0;
  const location = res.headers.location;
  if (REDIRECTS.has(status) && typeof location === "string" && location.length > 0) {
    res.resume();
    abort();
    return Promise.resolve({ kind: "redirect", status, location });
  }
  const fail = (message: string) => {
    abort();
    return Promise.reject(new FetchError(message));
  };
  const declared = Number(res.headers["content-length"] ?? Number.NaN);
  if (Number.isFinite(declared) && declared > request.maxBytes) {
    return fail(`The page is ${megabytes(declared)}, larger than the ${megabytes(request.maxBytes)} web_fetch reads.`);
  }
  const contentType = String(res.headers["content-type"] ?? "");
  if (contentType !== "" && !isTextType(contentType) && status < 400) {
    return fail(
      `The URL returned ${contentType.split(";")[0]}, not text; web_fetch reads text, HTML, JSON and XML only.`,
    );
  }
  const decoder = decoderFor(res.headers["content-encoding"]);
  if (decoder === "unknown")
    return fail(`The page uses a content encoding web_fetch cannot read (${res.headers["content-encoding"]}).`);
  const stream: Readable = decoder ? res.pipe(decoder) : res;
  if (decoder) res.on("error", (error) => decoder.destroy(error));
  return readCapped(stream, request.maxBytes, abort).then((body) => {
    if (contentType === "" && !looksLikeText(body))
      throw new FetchError("The URL returned binary data, not text; web_fetch reads text, HTML, JSON and XML only.");
    return {
      kind: "body",
      status,
      statusText: res.statusMessage ?? "",
      contentType: contentType || "text/plain",
      body,
    };
  });
}

export function requestHop(request: HopRequest): Promise<HopResponse> {
  const { url } = request;
  const client = url.protocol === "https:" ? https : http;
  const pinned = request.addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  const lookup = ((_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, pinned);
    else callback(null, pinned[0]?.address, pinned[0]?.family);
  }) as unknown as LookupFunction;
  const options: https.RequestOptions = {
    protocol: url.protocol,
    host: bareHost(url),
    port: url.port === "" ? undefined : Number(url.port),
    path: `${url.pathname}${url.search}`,
    method: "GET",
    signal: request.signal,
    headers: {
      "User-Agent": request.userAgent,
      Accept: "text/markdown, text/html;q=0.9, text/plain;q=0.8, application/json;q=0.7, */*;q=0.1",
      "Accept-Encoding": "gzip, deflate, br",
    },
    lookup,
  };
  return new Promise<HopResponse>((resolve, reject) => {
    const req = client.request(options, (res) => {
      handleResponse(res, request, () => req.destroy()).then(resolve, reject);
    });
    req.on("error", reject);
    req.end();
  });
}

/** The body as text, in the declared charset (UTF-8 when none or unknown). */
export function decodeBody(body: Uint8Array, contentType: string): string {
  const charset = /charset\s*=\s*"?([^";\s]+)/i.exec(contentType)?.[1];
  try {
    return new TextDecoder((charset ?? "utf-8") as ConstructorParameters<typeof TextDecoder>[0]).decode(body);
  } catch {
    return new TextDecoder("utf-8").decode(body);
  }
}
