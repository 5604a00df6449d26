// Attribute macros that C code (the Linux kernel's above all) puts between a declaration's type
// and its name: `int __init setup(void)`, `static __always_inline void *kmalloc(…)`. The C
// grammar parses without a preprocessor, so it takes such a macro for the type or the name and
// the function is lost. Before parsing, the well-known ones are blanked out with spaces of the
// same length, so every line and column stays where it was. Names only: a list that guesses
// (any `__word`) would also blank types such as `__u32` and functions such as `__kmalloc`.

/** Blanked where they stand alone. */
const PLAIN = [
  "__init",
  "__exit",
  "__ref",
  "__meminit",
  "__cpuinit",
  "__devinit",
  "__initdata",
  "__initconst",
  "__exitdata",
  "__read_mostly",
  "__ro_after_init",
  "__always_inline",
  "__inline",
  "__inline__",
  "noinline",
  "__noinline",
  "noinline_for_stack",
  "__cold",
  "__hot",
  "__weak",
  "__pure",
  "__malloc",
  "__must_check",
  "__maybe_unused",
  "__always_unused",
  "__used",
  "__noreturn",
  "__visible",
  "__iomem",
  "__user",
  "__kernel",
  "__rcu",
  "__percpu",
  "__force",
  "__nocast",
  "__safe",
  "__packed",
  "__latent_entropy",
  "__randomize_layout",
  "__no_randomize_layout",
  "__sched",
  "__irq_entry",
  "__kprobes",
  "__flatten",
  "__nocfi",
  "__noclone",
  "__naked",
  "notrace",
  "asmlinkage",
  "__cdecl",
  "__stdcall",
  "__fastcall",
  "__restrict",
  "__restrict__",
  "__extension__",
  "WINAPI",
  "APIENTRY",
];

/** Blanked with their parenthesized arguments: `__alloc_size(1)`, `__printf(2, 3)`. */
const WITH_ARGUMENTS = [
  "__alloc_size",
  "__realloc_size",
  "__printf",
  "__scanf",
  "__section",
  "__aligned",
  "__acquires",
  "__releases",
  "__must_hold",
  "__cond_acquires",
  "__diagnose_as",
  "__assume_aligned",
  "__nonstring",
  "__counted_by",
  "__declspec",
  "__attribute__",
  "__attribute",
];

const PATTERN = new RegExp(
  `\\b(?:(?:${WITH_ARGUMENTS.join("|")})\\s*\\((?:[^()]|\\((?:[^()]|\\([^()]*\\))*\\))*\\)|(?:${PLAIN.join("|")})\\b)`,
  "g",
);

/** The text with attribute macros replaced by spaces (newlines kept), for the C and C++ grammars. */
export function blankAttributes(text: string): string {
  return text.replace(PATTERN, (found) => found.replace(/[^\n]/g, " "));
}
