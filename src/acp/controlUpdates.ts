// What the editor hears of a session's controls outside a turn (Runtime.controls.watch): the
// usage after a switch or a /compact (usage_update), the mode (current_mode_update, for the older
// session-modes API) and the whole option set after a change of the mode, the model or the effort
// (config_option_update, once for the changes made together). A change the editor asked for
// itself is answered by its request, not announced: set_mode does not hear current_mode_update,
// set_config_option does not hear config_option_update.
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import type { Runtime } from "../runtime/runtime.ts";
import { configOptions } from "./configOptions.ts";
import { usageUpdate } from "./usage.ts";

export class ControlUpdates {
  readonly #quiet = { mode: false, config: false };
  #configPending = false;

  constructor(
    private readonly runtime: Runtime,
    /** Sends an update about the session, whether a prompt runs or not. */
    private readonly announce: (update: SessionUpdate) => void,
    private readonly log: (text: string) => void,
  ) {
    runtime.controls.watch((event) => {
      if (event.type === "usage") announce(usageUpdate(event));
      if (event.type === "mode" && !this.#quiet.mode)
        announce({ sessionUpdate: "current_mode_update", currentModeId: event.mode });
      if (!this.#quiet.config && (event.type === "mode" || event.type === "model" || event.type === "effort"))
        this.#announceConfig();
    });
  }

  /** Runs the editor's own change (`what` is the API it came by), which its answer tells it of. */
  async quietly<T>(what: "mode" | "config", change: () => T | Promise<T>): Promise<T> {
    this.#quiet[what] = true;
    try {
      return await change();
    } finally {
      this.#quiet[what] = false;
    }
  }

  #announceConfig(): void {
    if (this.#configPending) return;
    this.#configPending = true;
    queueMicrotask(() => {
      this.#configPending = false;
      this.announce({ sessionUpdate: "config_option_update", configOptions: configOptions(this.runtime, this.log) });
    });
  }
}
