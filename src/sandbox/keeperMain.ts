// Entry point of the process keeper when Garuda runs from source:
//   bun src/sandbox/keeperMain.ts <parent pid> <grace ms> <cwd> -- <command…>
// The compiled binary reaches the same code through its hidden `__process-keeper` command.
import { runKeeper } from "./keeper.ts";

if (import.meta.main) await runKeeper(process.argv.slice(2));
