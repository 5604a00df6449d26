// The context and cost meter: a `usage_update` (stable in ACP v1) after every model response and
// compaction — `used`, the tokens now in the context; `size`, the model's window; `cost`, the
// session's total so far in US dollars at the catalog's prices, left out when a model of the
// session has no price.
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import type { UsageSnapshot } from "../core-types/events.ts";

const whole = (value: number) => (Number.isFinite(value) ? Math.max(0, Math.round(value)) : 0);

export function usageUpdate(usage: UsageSnapshot): SessionUpdate {
  return {
    sessionUpdate: "usage_update",
    used: whole(usage.used),
    size: whole(usage.size),
    ...(usage.cost !== undefined && Number.isFinite(usage.cost) && { cost: { amount: usage.cost, currency: "USD" } }),
  };
}
