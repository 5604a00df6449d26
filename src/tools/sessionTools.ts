// The command, web and plan tools of one session: bash, process_manager, web_fetch and todo,
// with the session state they share (the plan, the background processes). web_search is not
// here: it is Anthropic's server tool (see webSearch.ts), offered through the model request.
import { type BashOptions, bashTool } from "./bash.ts";
import { processManagerTool, type ProcessManagerOptions } from "./processManager.ts";
import { ProcessTable } from "./processTable.ts";
import type { OutsideSandbox } from "./sandboxHints.ts";
import { PlanState, todoTool } from "./todo.ts";
import type { Tool } from "./types.ts";
import { webFetchTool, type WebFetchOptions } from "./webFetch.ts";

export interface SessionToolsOptions {
  /** "forbidden" when the team policy never lets a command leave the sandbox. Default "ask". */
  outsideSandbox?: OutsideSandbox;
  /** The session's plan; created when not given. */
  plan?: PlanState;
  /** The session's background processes; created when not given. */
  processes?: ProcessTable;
  /** web_fetch settings; `false` leaves web_fetch out. */
  webFetch?: WebFetchOptions | false;
  /** Leave todo out (default: included). */
  todo?: boolean;
  bash?: Omit<BashOptions, "outsideSandbox">;
  processManager?: Omit<ProcessManagerOptions, "processes">;
}

export interface SessionTools {
  tools: Tool[];
  plan: PlanState;
  processes: ProcessTable;
}

export function createSessionTools(options: SessionToolsOptions = {}): SessionTools {
  const plan = options.plan ?? new PlanState();
  const processes = options.processes ?? new ProcessTable();
  const outsideSandbox = options.outsideSandbox ?? "ask";
  const tools: Tool[] = [
    bashTool({ ...options.bash, outsideSandbox }),
    processManagerTool({ ...options.processManager, processes }),
  ];
  if (options.webFetch !== false) tools.push(webFetchTool(options.webFetch ?? {}));
  if (options.todo !== false) tools.push(todoTool(plan));
  return { tools, plan, processes };
}
