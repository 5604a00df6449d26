/**
 * The hidden command of the compiled binary that runs the process keeper (keeper.ts); its own file so the entry point
 * loads nothing else.
 */
export const KEEPER_COMMAND = "__process-keeper";
