/** The leading, non-secret part of common key formats: `sk-ant-api03-`, `sk-or-v1-`, `sk-`. */
const KEY_PREFIX = /^(?:[a-z][a-z0-9]{0,5}-){1,3}/;

/**
 * A key as a summary shows it. 32 characters or more: its prefix (the format's fixed part, or
 * the first 3 characters) and the last 4; from 16: the last 4 only; shorter: nothing of it.
 */
export function maskKey(key: string): string {
  if (key.length < 16) return "••••";
  const last = key.slice(-4);
  if (key.length < 32) return `…${last}`;
  const prefix = KEY_PREFIX.exec(key)?.[0] ?? key.slice(0, 3);
  return `${prefix}…${last}`;
}
