// Dollar amounts as people read them. Prices come from a server's catalogue as floats (a per-token
// price times a million gives 3.0000000000000004), so they are rounded before they are shown.

/** An amount in dollars with at most 4 decimals, no trailing zeros: 3, 0.25, 0.0042, 15.5. */
export function dollars(amount: number): string {
  return String(Number(amount.toFixed(4)));
}
