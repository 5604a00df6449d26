// Baked into the binary at build time; scripts/build.ts checks it equals package.json.
export const VERSION = "0.1.0";
