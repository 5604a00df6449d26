// Secrets out of anything Garuda keeps on disk (audit log, session files): the provider keys it
// holds, plus the shapes of common keys and tokens wherever they appear in a string.
import { cutText } from "../text/cut.ts";
import { mapJson } from "../text/jsonShape.ts";

export const REDACTED = "[REDACTED]";

/** Secrets shorter than this are not searched for: they would blank out ordinary words. */
export const MIN_SECRET_LENGTH = 8;

/** Common key and token shapes. Each match is replaced whole (a prefix may be kept, see below). */
const PATTERNS: readonly { pattern: RegExp; keep?: (match: string, ...groups: string[]) => string }[] = [
  // PEM private keys, including one cut off before its END line.
  { pattern: /-----BEGIN[A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END[A-Z0-9 ]*PRIVATE KEY-----|$)/g },
  // Anthropic, OpenAI, OpenRouter and similar `sk-…` keys.
  { pattern: /\bsk-(?:ant-)?[A-Za-z0-9_-]{16,}/g },
  // GitHub tokens.
  { pattern: /\bgh[pousr]_[A-Za-z0-9]{20,}/g },
  { pattern: /\bgithub_pat_[A-Za-z0-9_]{20,}/g },
  // GitLab, Slack, Google, Stripe, npm.
  { pattern: /\bglpat-[A-Za-z0-9_-]{16,}/g },
  { pattern: /\bxox[abprs]-[A-Za-z0-9-]{10,}/g },
  { pattern: /\bAIza[0-9A-Za-z_-]{35}/g },
  { pattern: /\b[rs]k_live_[A-Za-z0-9]{16,}/g },
  { pattern: /\bnpm_[A-Za-z0-9]{30,}/g },
  // Hugging Face tokens, Google OAuth access tokens, JSON Web Tokens (a header.payload.signature).
  { pattern: /\bhf_[A-Za-z0-9]{30,}/g },
  { pattern: /\bya29\.[A-Za-z0-9_-]{20,}/g },
  { pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g },
  // The password in a URL (postgres://user:password@host): keep the scheme, user and host.
  { pattern: /\b([a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:)[^\s@/]+@/gi, keep: (_match, before) => `${before}${REDACTED}@` },
  // AWS access key ids.
  { pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g },
  // Authorization headers: keep the scheme so the line still reads.
  { pattern: /\b(Bearer|Basic|Token)\s+[A-Za-z0-9._~+/=-]{8,}/gi, keep: (_match, scheme) => `${scheme} ${REDACTED}` },
  // NAME=value where the name says it holds a secret (API_KEY=…, GITHUB_TOKEN: …, password=…).
  {
    pattern:
      /\b([A-Za-z0-9_]*(?:API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD)[A-Za-z0-9_]*)(["']?\s*[=:]\s*["']?)([^\s"'&]{6,})/gi,
    keep: (_match, name, separator) => `${name}${separator}${REDACTED}`,
  },
];

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

export type Redactor = (text: string) => string;

/**
 * A redactor for these secrets (exact values, e.g. the provider keys in memory) and for the
 * common key shapes. Longer secrets are replaced first so one that contains another goes whole.
 */
export function createRedactor(secrets: Iterable<string> = []): Redactor {
  const exact = [...new Set([...secrets].filter((secret) => secret.length >= MIN_SECRET_LENGTH))].sort(
    (a, b) => b.length - a.length,
  );
  const exactPattern = exact.length > 0 ? new RegExp(exact.map(escapeRegExp).join("|"), "g") : undefined;
  return (text) => {
    let out = exactPattern ? text.replace(exactPattern, REDACTED) : text;
    for (const { pattern, keep } of PATTERNS) {
      out = out.replace(pattern, (match, ...groups: unknown[]) =>
        keep ? keep(match, ...(groups.filter((g) => typeof g === "string") as string[])) : REDACTED,
      );
    }
    return out;
  };
}

export interface RedactValueOptions {
  /** Keys whose strings stay as they are (a provider's opaque fields). */
  keep?: ReadonlySet<string>;
  /** Nesting past this depth is left out (text/jsonShape.ts mapJson); default MAX_JSON_DEPTH. */
  maxDepth?: number;
}

/** Applies the redactor to every string in a JSON-like value (keys stay as they are). */
export function redactValue(value: unknown, redact: Redactor, options: RedactValueOptions = {}): unknown {
  const { keep, maxDepth } = options;
  return mapJson(value, (text, key) => (key !== undefined && keep?.has(key) ? text : redact(text)), maxDepth);
}

/** Room past a cut for a secret that starts before it (a PEM key is a few thousand characters). */
const CUT_MARGIN = 8_192;

/**
 * The text redacted and cut to `max` characters with a marker. Only the part that is kept is
 * redacted (plus a margin, so a secret that starts before the cut is still found whole).
 */
export function redactCut(text: string, redact: Redactor, max: number): string {
  if (text.length <= max) return redact(text);
  return cutText(redact(text.slice(0, max + CUT_MARGIN)), max, text.length);
}
