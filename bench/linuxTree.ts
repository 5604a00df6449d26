// A generated source tree shaped like Linux 6.1 (for bench/search.ts): by default 78,600 files
// in 5,100 folders, ~1 GB, its top-level areas in Linux's proportions (drivers, arch,
// Documentation …), C sources and headers written as the kernel writes them (attribute macros,
// EXPORT_SYMBOL, #ifdef CONFIG_…), 1,331 assembler sources `*.S`, Makefiles and Kconfig files,
// and the kernel's root .gitignore (`.*`, `*.o`, `*.s` …). Deterministic: the same seed and
// sizes make the same bytes. `kmalloc` is defined once (include/linux/slab.h, behind
// `static __always_inline`), declared in a few headers and called in many files, as in Linux.
//
//   bun bench/linuxTree.ts DIR [--files N] [--folders N] [--seed N] [--bytes-scale X]
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface TreeShape {
  files: number;
  folders: number;
  seed: number;
  /** Multiplies every file's size (1: ~1 GB for 78,600 files, as Linux). */
  bytesScale: number;
}

export const LINUX_SHAPE: TreeShape = { files: 78_600, folders: 5_100, seed: 61, bytesScale: 1 };

/** Linux 6.1's assembler sources: every one must be found (the root .gitignore has `*.s`). */
const ASSEMBLER_FILES = 1_331;

/**
 * Share of folders (and so of files: each folder gets about as many) per top-level folder, and what kinds of files it
 * holds (weights).
 */
const AREAS: ReadonlyArray<{ name: string; share: number; kinds: Readonly<Record<string, number>> }> = [
  { name: "drivers", share: 0.42, kinds: { c: 60, h: 34, dts: 1, rst: 1, yaml: 1 } },
  { name: "arch", share: 0.22, kinds: { c: 28, h: 32, dts: 30, S: 0 } },
  { name: "Documentation", share: 0.1, kinds: { rst: 55, txt: 10, yaml: 32, py: 3 } },
  { name: "include", share: 0.07, kinds: { h: 100 } },
  { name: "tools", share: 0.06, kinds: { c: 40, h: 22, sh: 16, py: 10, json: 12 } },
  { name: "sound", share: 0.035, kinds: { c: 62, h: 38 } },
  { name: "fs", share: 0.033, kinds: { c: 70, h: 30 } },
  { name: "net", share: 0.027, kinds: { c: 74, h: 26 } },
  { name: "lib", share: 0.009, kinds: { c: 80, h: 20, S: 0 } },
  { name: "kernel", share: 0.008, kinds: { c: 85, h: 15 } },
  { name: "scripts", share: 0.008, kinds: { c: 30, sh: 30, py: 20, pl: 20 } },
  { name: "crypto", share: 0.003, kinds: { c: 90, h: 10, S: 0 } },
  { name: "mm", share: 0.002, kinds: { c: 85, h: 15 } },
  { name: "security", share: 0.003, kinds: { c: 80, h: 20 } },
  { name: "samples", share: 0.002, kinds: { c: 90, h: 10 } },
  { name: "block", share: 0.001, kinds: { c: 85, h: 15 } },
  { name: "virt", share: 0.001, kinds: { c: 85, h: 15 } },
  { name: "init", share: 0.0004, kinds: { c: 90, h: 10 } },
  { name: "ipc", share: 0.0003, kinds: { c: 100 } },
];

/** The start of Linux's root .gitignore: hidden files, build products, and `*.s` (not `*.S`). */
export const ROOT_GITIGNORE = `#
# NOTE! Don't add files that are generated in specific
# subdirectories here. Add them in the ".gitignore" file
# in that subdirectory instead.
#
# Normal rules (sorted alphabetically)
#
.*
*.a
*.asn1.[ch]
*.bin
*.bz2
*.c.[012]*.*
*.dt.yaml
*.dtb
*.dtbo
*.dtb.S
*.dwo
*.elf
*.gcno
*.gz
*.i
*.ko
*.lex.c
*.ll
*.lst
*.lz4
*.lzma
*.lzo
*.mod
*.mod.c
*.o
*.o.*
*.patch
*.rmeta
*.rpm
*.rsi
*.s
*.so
*.so.dbg
*.su
*.symtypes
*.symversions
*.tab.[ch]
*.tar
*.xz
*.zst
Module.symvers
modules.order

#
# git files that we don't want to ignore even if they are dot-files
#
!.clang-format
!.cocciconfig
!.get_maintainer.ignore
!.gitattributes
!.gitignore
!.mailmap
!.rustfmt.toml

/vmlinux
/vmlinux.32
/vmlinux-gdb.py
/vmlinuz
/System.map
/Module.markers
`;

const WORDS = (
  "acpi adc alloc amd arm audio bio blk bpf buf bus cache can cgroup chan clk codec core cpu crc " +
  "crypto ctrl dai dev dma dp drm dsp eth event ext fb fence fifo fs gem gpio gpu hash hda hid hw i2c " +
  "iio inode ioctl iommu ipv irq kfd key kvm link list lock mac map mdio mem mmc mmu mod msg mtd nand " +
  "net nfs node nvme of page pci perf phy pin pm port power probe pwm queue rcu reg regmap ring rpc " +
  "rtc sched scsi sdhci seq serial sg skb slab snd soc spi sta stat sync sys task tcp thermal timer " +
  "tty uart udp usb vfs video vma wait wlan work xdp xfs zone"
).split(" ");

/** mulberry32: small, fast and the same everywhere. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Random = () => number;
const pick = <T>(rand: Random, list: readonly T[]): T => list[Math.floor(rand() * list.length)] as T;
const between = (rand: Random, low: number, high: number) => low + Math.floor(rand() * (high - low + 1));

function weighted(rand: Random, weights: Readonly<Record<string, number>>): string {
  const entries = Object.entries(weights).filter(([, w]) => w > 0);
  let at = rand() * entries.reduce((sum, [, w]) => sum + w, 0);
  for (const [key, w] of entries) {
    at -= w;
    if (at <= 0) return key;
  }
  return (entries[entries.length - 1] as [string, number])[0];
}

/** A C function as the kernel writes one; some call kmalloc. */
function cFunction(rand: Random, prefix: string, n: number): string {
  const name = `${prefix}_${pick(rand, WORDS)}_${n}`;
  const attrs = pick(rand, ["static ", "static ", "static inline ", "static int __init ", "", "static void __exit "]);
  const type = attrs.includes("__init") || attrs.includes("__exit") ? "" : pick(rand, ["int ", "void ", "long "]);
  const lines = [`${attrs}${type}${name}(struct ${prefix}_dev *dev, unsigned int flags)`, "{"];
  const body = between(rand, 4, 30);
  for (let i = 0; i < body; i++) {
    const r = rand();
    if (r < 0.04) lines.push("\tbuf = kmalloc(sizeof(*buf), GFP_KERNEL);", "\tif (!buf)", "\t\treturn -ENOMEM;");
    else if (r < 0.12) lines.push(`\tmutex_lock(&dev->${pick(rand, WORDS)}_lock);`);
    else if (r < 0.2) lines.push(`\tif (flags & ${prefix.toUpperCase()}_${pick(rand, WORDS).toUpperCase()}_MASK)`);
    else if (r < 0.3) lines.push(`\t\tdev_err(dev->dev, "failed to set ${pick(rand, WORDS)}: %d\\n", ret);`);
    else if (r < 0.5) lines.push(`\tret = ${prefix}_${pick(rand, WORDS)}_write(dev, ${between(rand, 0, 255)});`);
    else lines.push(`\tval = readl(dev->base + ${prefix.toUpperCase()}_REG_${between(rand, 0, 63)});`);
  }
  lines.push("\treturn 0;", "}", "");
  if (!attrs.startsWith("static")) lines.push(`EXPORT_SYMBOL_GPL(${name});`, "");
  return lines.join("\n");
}

function cSource(rand: Random, prefix: string, size: number): string {
  const parts = [
    "// SPDX-License-Identifier: GPL-2.0-only",
    `/*\n * ${prefix} ${pick(rand, WORDS)} support\n */`,
    "#include <linux/module.h>",
    "#include <linux/slab.h>",
    `#include "${prefix}.h"`,
    "",
    `#define ${prefix.toUpperCase()}_TIMEOUT_MS\t${between(rand, 10, 5000)}`,
    "",
    `struct ${prefix}_${pick(rand, WORDS)}_priv {\n\tstruct ${prefix}_dev *dev;\n\tunsigned long flags;\n};`,
    "",
  ];
  let length = parts.join("\n").length;
  for (let n = 0; length < size; n++) {
    const fn = cFunction(rand, prefix, n);
    parts.push(fn);
    length += fn.length;
  }
  parts.push(`MODULE_LICENSE("GPL");`, "");
  return parts.join("\n");
}

function cHeader(rand: Random, prefix: string, size: number): string {
  const guard = `_${prefix.toUpperCase()}_H`;
  const parts = [`/* SPDX-License-Identifier: GPL-2.0 */`, `#ifndef ${guard}`, `#define ${guard}`, ""];
  let length = 0;
  for (let n = 0; length < size; n++) {
    const word = pick(rand, WORDS);
    const block =
      n % 3 === 0
        ? `struct ${prefix}_${word}_${n} {\n\tu32 ${word};\n\tstruct list_head list;\n\tvoid __iomem *base;\n};\n`
        : n % 3 === 1
          ? `#define ${prefix.toUpperCase()}_${word.toUpperCase()}_${n}\t(1 << ${n % 32})\n`
          : `int ${prefix}_${word}_${n}(struct ${prefix}_dev *dev, unsigned int flags);\n`;
    parts.push(block);
    length += block.length;
  }
  parts.push(`#endif /* ${guard} */`, "");
  return parts.join("\n");
}

function assembler(rand: Random, prefix: string, size: number): string {
  const parts = ["/* SPDX-License-Identifier: GPL-2.0 */", "#include <linux/linkage.h>", ""];
  let length = 0;
  for (let n = 0; length < size; n++) {
    const block =
      `SYM_FUNC_START(${prefix}_${pick(rand, WORDS)}_${n})\n\tmov\t%rdi, ` +
      `%rax\n\tret\nSYM_FUNC_END(${prefix}_${pick(rand, WORDS)}_${n})\n`;
    parts.push(block);
    length += block.length;
  }
  return parts.join("\n");
}

function prose(rand: Random, size: number): string {
  const lines: string[] = [];
  let length = 0;
  while (length < size) {
    const line = Array.from({ length: between(rand, 6, 14) }, () => pick(rand, WORDS)).join(" ");
    lines.push(line);
    length += line.length + 1;
  }
  return `${lines.join("\n")}\n`;
}

/** Typical sizes in bytes (Linux 6.1: .c ~27 KB, .h ~9 KB on average). */
const SIZES: Readonly<Record<string, [number, number]>> = {
  c: [2_000, 45_000],
  h: [600, 16_000],
  S: [1_000, 14_000],
  dts: [1_000, 14_000],
  rst: [1_000, 14_000],
};

function content(rand: Random, kind: string, prefix: string, scale: number): string {
  const [low, high] = SIZES[kind] ?? [300, 5_000];
  const size = Math.round(between(rand, low, high) * scale);
  if (kind === "c") return cSource(rand, prefix, size);
  if (kind === "h") return cHeader(rand, prefix, size);
  if (kind === "S") return assembler(rand, prefix, size);
  return prose(rand, size);
}

const SLAB_H = `/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _LINUX_SLAB_H
#define _LINUX_SLAB_H
#include <linux/gfp.h>

void *__kmalloc(size_t size, gfp_t flags) __assume_kmalloc_alignment __alloc_size(1);
void kfree(const void *objp);

struct kmem_cache {
\tunsigned int object_size;
\tconst char *name;
};

static __always_inline __alloc_size(1) void *kmalloc(size_t size, gfp_t flags)
{
\treturn __kmalloc(size, flags);
}

#endif\t/* _LINUX_SLAB_H */
`;

const TOOLS_SLAB_H = `/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _TOOLS_SLAB_H
#define _TOOLS_SLAB_H
#include <linux/types.h>

void *kmalloc(size_t size, gfp_t gfp);
void kfree(void *p);

#endif /* _TOOLS_SLAB_H */
`;

/** Writes the tree into `root` (which should be empty); returns the count of each kind of file. */
export function makeLinuxTree(root: string, shape: TreeShape = LINUX_SHAPE): Record<string, number> {
  const rand = random(shape.seed);
  const counts: Record<string, number> = {};
  // Folders: each area gets its share, grown as a random tree two to six levels deep.
  const folders: Array<{ path: string; area: (typeof AREAS)[number] }> = [];
  for (const area of AREAS) {
    const own = Math.max(1, Math.round(shape.folders * area.share));
    const mine = [area.name];
    while (mine.length < own) {
      const parent = pick(rand, mine);
      if (parent.split("/").length >= 6) continue;
      mine.push(`${parent}/${pick(rand, WORDS)}${mine.length}`);
    }
    for (const path of mine) folders.push({ path, area });
  }
  for (const { path } of folders) mkdirSync(join(root, path), { recursive: true });
  writeFileSync(join(root, ".gitignore"), ROOT_GITIGNORE);
  mkdirSync(join(root, "include/linux"), { recursive: true });
  writeFileSync(join(root, "include/linux/slab.h"), SLAB_H);
  // As in Linux, tools/ has its own slab.h that declares kmalloc (a prototype, not the definition).
  mkdirSync(join(root, "tools/include/linux"), { recursive: true });
  writeFileSync(join(root, "tools/include/linux/slab.h"), TOOLS_SLAB_H);
  let written = 3;
  // Assembler files go to arch, lib and crypto (where Linux has them), spread evenly.
  const assemblerFolders = folders.filter((f) => ["arch", "lib", "crypto"].includes(f.area.name));
  let assemblerLeft = Math.min(ASSEMBLER_FILES, Math.round((ASSEMBLER_FILES * shape.files) / LINUX_SHAPE.files));
  for (let i = 0; written < shape.files; i++) {
    const folder = folders[i % folders.length] as (typeof folders)[number];
    const prefix = (folder.path.split("/").pop() as string).replace(/\d+$/, "").replace(/\W/g, "_") || "dev";
    let kind = weighted(rand, folder.area.kinds);
    if (assemblerLeft > 0 && assemblerFolders.includes(folder) && rand() < 0.15) {
      kind = "S";
      assemblerLeft--;
    }
    const n = Math.floor(i / folders.length);
    const name =
      kind === "txt" || kind === "json" ? `${prefix}-${n}.${kind}` : `${prefix}_${pick(rand, WORDS)}${n}.${kind}`;
    writeFileSync(join(root, folder.path, name), content(rand, kind, prefix, shape.bytesScale));
    counts[kind] = (counts[kind] ?? 0) + 1;
    written++;
    // A folder's first C source brings its Makefile, and every third such folder a Kconfig.
    if (kind === "c" && n === 0) {
      writeFileSync(
        join(root, folder.path, "Makefile"),
        `# SPDX-License-Identifier: GPL-2.0\nobj-$(CONFIG_${prefix.toUpperCase()}) += ${name.replace(/\.c$/, ".o")}\n`,
      );
      counts.Makefile = (counts.Makefile ?? 0) + 1;
      written++;
      if (i % 3 === 0) {
        writeFileSync(
          join(root, folder.path, "Kconfig"),
          `config ${prefix.toUpperCase()}\n\ttristate "${prefix} support"\n\thelp\n${prose(rand, 400)}`,
        );
        counts.Kconfig = (counts.Kconfig ?? 0) + 1;
        written++;
      }
    }
  }
  return counts;
}

if (import.meta.main) {
  const [dir, ...rest] = process.argv.slice(2);
  if (!dir) throw new Error("usage: bun bench/linuxTree.ts DIR [--files N] [--folders N] [--seed N] [--bytes-scale X]");
  const shape = { ...LINUX_SHAPE };
  for (let i = 0; i < rest.length; i += 2) {
    const value = Number(rest[i + 1]);
    if (rest[i] === "--files") shape.files = value;
    else if (rest[i] === "--folders") shape.folders = value;
    else if (rest[i] === "--seed") shape.seed = value;
    else if (rest[i] === "--bytes-scale") shape.bytesScale = value;
    else throw new Error(`unknown argument ${rest[i]}`);
  }
  mkdirSync(dir, { recursive: true });
  const started = performance.now();
  console.log(makeLinuxTree(dir, shape), `${((performance.now() - started) / 1000).toFixed(1)} s`);
}
