// Whole numbers with thousands separators, as `toLocaleString("en-US")` writes them: 24,000.
// Without Intl: the first toLocaleString of a process loads ICU's number formatting (~1.3 ms),
// and model descriptions are built while session/new waits.

/** 4000 → "4,000", -1234567 → "-1,234,567"; anything but a safe integer as toLocaleString("en-US") writes it. */
export function groupedCount(n: number): string {
  if (!Number.isSafeInteger(n)) return n.toLocaleString("en-US");
  return String(n).replace(/\B(?=(\d{3})+$)/g, ",");
}
