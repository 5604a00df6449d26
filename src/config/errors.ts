// Only for src/acp/server.ts, which another change is splitting now: its one import() of this
// file moves to src/errors/configError.ts with that split, and then this file goes.
export { ConfigError, SetupRequiredError } from "../errors/configError.ts";
