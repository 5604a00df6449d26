// The session's tools: the ones it was given and, from the turn its extensions start, theirs
// (MCP servers' tools). The registry is rebuilt only when the extensions' list changes, so the
// tool specs the model sees stay byte-stable between turns.
import { messageOf } from "../errors/caught.ts";
import { ToolRegistry } from "../tools/registry.ts";
import type { Tool } from "../tools/types.ts";
import type { Notice, TurnExtensions } from "./services.ts";

export class SessionTools {
  readonly #given: readonly Tool[];
  #registry: ToolRegistry;
  /** The extensions' tools the registry was last built with. */
  #extensionTools: readonly Tool[] = [];

  constructor(given: readonly Tool[]) {
    this.#given = given;
    this.#registry = new ToolRegistry(given);
  }

  /** The tools now; a turn keeps the registry it started with. */
  get registry(): ToolRegistry {
    return this.#registry;
  }

  /**
   * Starts (or refreshes) the extensions at a turn's start; a changed tool list means a new
   * registry, from this turn on. A failure is a warning to `notice` (none when the turn was cancelled).
   */
  async join(extensions: TurnExtensions, signal: AbortSignal, notice: (notice: Notice) => void): Promise<void> {
    try {
      const tools = await extensions.beforeTurn(signal, notice);
      if (tools === this.#extensionTools) return;
      this.#registry = new ToolRegistry([...this.#given, ...tools]);
      this.#extensionTools = tools;
    } catch (error) {
      if (!signal.aborted) notice({ level: "warning", text: `Extensions could not start: ${messageOf(error)}` });
    }
  }
}
