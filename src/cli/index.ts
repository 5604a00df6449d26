// The binary's entry point. It stays tiny on purpose: `garuda --version` answers before any
// other module is loaded, and every command is imported only when it runs (architecture rule 8).
import { KEEPER_COMMAND } from "../sandbox/keeperName.ts";
import { VERSION } from "../version.ts";
import { START_UP_MS, normalJitPolicy } from "./process/jitPolicy.ts";
import { SANDBOX_BRIDGE_COMMAND, unsupportedPlatformMessage } from "./platform.ts";

function start(argv: string[]): void {
  const refusal = unsupportedPlatformMessage(process.platform);
  // `garuda acp` still answers an editor on Windows: initialize works and session/new says to
  // use WSL (the ACP design), which an editor can show; every other command stops here.
  const editorServer = argv[0] === "acp" && argv[1] !== "setup";
  if (refusal && !editorServer) {
    console.error(refusal);
    process.exit(1);
  }
  // The sandbox bridge runs inside bwrap before every networked command: it must start fast
  // and load nothing else (src/sandbox/bridge.ts).
  if (argv[0] === SANDBOX_BRIDGE_COMMAND) {
    normalJitPolicy();
    import("../sandbox/bridge.ts").then(({ runBridge }) => runBridge(argv.slice(1))).then((code) => process.exit(code));
    return;
  }
  setTimeout(normalJitPolicy, START_UP_MS).unref();
  // The process keeper runs above every command on the host (src/sandbox/keeper.ts): the same.
  if (argv[0] === KEEPER_COMMAND) {
    import("../sandbox/keeper.ts").then(({ runKeeper }) => runKeeper(argv.slice(1)));
    return;
  }
  if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-v")) {
    // console.log, not process.stdout.write: in Bun the stdout stream object alone costs
    // ~13 ms and 8 MiB to set up, more than the rest of this path (bench/startup.ts).
    console.log(VERSION);
    return;
  }
  import("./main.ts")
    .then(({ main }) => main(argv))
    .then((code) => {
      process.exitCode = code;
    });
}

start(process.argv.slice(2));
