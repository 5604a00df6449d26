// The shipped binary starts with JavaScriptCore's tier-up thresholds raised
// (`--compile-jit-policy`, scripts/buildTargets.ts): start-up code runs about once, so compiling it
// is wasted work. Each process goes back to the normal policy where its start-up ends: `garuda acp`
// once its first session is ready, the sandbox relay at once (hot from its first byte), every
// other process START_UP_MS after it started.

export const START_UP_MS = 300;

export function normalJitPolicy(): void {
  // Bun.unsafe.setJITPolicy is Bun 1.4's; older runtimes do without it.
  Bun.unsafe.setJITPolicy?.(1);
}
