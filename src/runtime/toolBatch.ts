// The tool calls of one model step: consecutive read-only calls run together (Promise.all),
// every other call runs alone, in the order the model gave. Results come back in call order.
import type { CallContext, CallOutcome, ToolCall, ToolRegistry } from "../tools/registry.ts";

/** Splits calls into groups that run one after another: runs of read-only calls, and single others. */
function batches(calls: readonly ToolCall[], isReadOnly: (name: string) => boolean): ToolCall[][] {
  const groups: ToolCall[][] = [];
  let reads: ToolCall[] = [];
  for (const call of calls) {
    if (isReadOnly(call.name)) {
      reads.push(call);
      continue;
    }
    if (reads.length > 0) groups.push(reads);
    reads = [];
    groups.push([call]);
  }
  if (reads.length > 0) groups.push(reads);
  return groups;
}

/**
 * Runs the calls; each finished outcome also goes into `done` as it comes, so a cancelled turn
 * keeps the results that were ready. After an abort no further group starts.
 */
export async function runToolCalls(
  registry: ToolRegistry,
  calls: readonly ToolCall[],
  ctx: CallContext,
  done: Map<string, CallOutcome>,
): Promise<CallOutcome[]> {
  for (const group of batches(calls, (name) => registry.isReadOnly(name))) {
    if (ctx.signal.aborted) break;
    await Promise.all(
      group.map(async (call) => {
        const outcome = await registry.run(call, ctx);
        done.set(call.id, outcome);
      }),
    );
  }
  return calls.flatMap((call) => {
    const outcome = done.get(call.id);
    return outcome ? [outcome] : [];
  });
}
