// Preloaded into a from-source `garuda acp` by bench/acpMemory.ts (bun --preload): records every
// TypeScript file Bun loads and every bare package specifier resolved (packages are not loaded
// through the plugin: handing a CommonJS file's text back loses its exports), and on SIGUSR2 writes what the agent
// holds to the file named by
// GARUDA_BENCH_MEMORY_REPORT: the modules, bun:jsc's heapStats and process.memoryUsage(), before
// and after a full Bun.gc(true). Never part of Garuda itself.
import { writeFileSync } from "node:fs";
import { heapStats } from "bun:jsc";

function snapshot() {
  const stats = heapStats();
  const top = Object.entries(stats.objectTypeCounts)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 12);
  return {
    memory: process.memoryUsage(),
    heapSize: stats.heapSize,
    heapCapacity: stats.heapCapacity,
    extraMemorySize: stats.extraMemorySize,
    objectCount: stats.objectCount,
    protectedObjectCount: stats.protectedObjectCount,
    top,
  };
}

process.on("SIGUSR2", () => {
  const before = snapshot();
  const started = performance.now();
  Bun.gc(true);
  const gcMs = performance.now() - started;
  const after = snapshot();
  const file = process.env.GARUDA_BENCH_MEMORY_REPORT;
  if (file) writeFileSync(file, JSON.stringify({ before, after, gcMs }));
});
