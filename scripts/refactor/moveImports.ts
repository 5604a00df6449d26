// Re-points imports after a declaration moved from one module to another, so a move made on one
// branch can be made again on another: `bun scripts/refactor/moveImports.ts src/a.ts src/b.ts
// Name1 Name2`. Every import or re-export of a listed name from src/a.ts (under src/, test/,
// scripts/, bench/) then names src/b.ts instead; the other names stay where they were. Moving
// the declaration itself is done by hand.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const [fromArg, toArg, ...names] = process.argv.slice(2);
if (fromArg === undefined || toArg === undefined || names.length === 0) {
  console.error("usage: bun scripts/refactor/moveImports.ts <from.ts> <to.ts> <Name>...");
  process.exit(2);
}
const repo = process.cwd();
const from = resolve(repo, fromArg);
const to = resolve(repo, toArg);
const moved = new Set(names);

function files(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(repo, dir), { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...files(path));
    else if (/\.tsx?$/.test(entry.name)) out.push(path);
  }
  return out;
}

function specifierFor(file: string, target: string): string {
  const rel = relative(dirname(resolve(repo, file)), target);
  return rel.startsWith(".") ? rel : `./${rel}`;
}

const STATEMENT = /^(import|export)(\s+type)?\s*\{([^}]*)\}\s*from\s*(["'])([^"']+)\4;?[ \t]*\n?/gm;
let changed = 0;
for (const file of ["src", "test", "scripts", "bench"].flatMap((dir) => files(dir))) {
  const source = readFileSync(join(repo, file), "utf8");
  const next = source.replace(STATEMENT, (whole, keyword: string, typeAll: string | undefined, list: string, quote: string, spec: string) => {
    if (!spec.startsWith(".") || resolve(dirname(resolve(repo, file)), spec) !== from) return whole;
    const items = list.split(",").map((item) => item.trim()).filter((item) => item !== "");
    const nameOf = (item: string) => item.replace(/^type\s+/, "").split(/\s+as\s+/)[0]?.trim() ?? "";
    const going = items.filter((item) => moved.has(nameOf(item)));
    if (going.length === 0) return whole;
    const staying = items.filter((item) => !moved.has(nameOf(item)));
    const line = (kept: string[], target: string) => {
      // `import { type A }` alone would load the module for nothing: say `import type { A }`.
      const allTypes = typeAll === undefined && kept.every((item) => item.startsWith("type "));
      const names = allTypes ? kept.map((item) => item.replace(/^type\s+/, "")) : kept;
      return `${keyword}${allTypes ? " type" : (typeAll ?? "")} { ${names.join(", ")} } from ${quote}${target}${quote};\n`;
    };
    return (staying.length > 0 ? line(staying, spec) : "") + line(going, specifierFor(file, to));
  });
  if (next !== source) {
    writeFileSync(join(repo, file), next);
    changed += 1;
  }
}
console.log(`${changed} files re-pointed`);
