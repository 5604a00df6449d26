// Entry point of the sandbox bridge when Garuda runs from source:
//   bun src/sandbox/bridgeMain.ts --socket <path> --port <n> -- <command…>
// The compiled binary reaches the same code through its hidden `__sandbox-bridge` command.
import { runBridge } from "./bridge.ts";

export { runBridge };

if (import.meta.main) process.exit(await runBridge(process.argv.slice(2)));
