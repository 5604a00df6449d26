// The narrow rule an "Allow for this session" answer adds for one simple command: its program
// and, for tools with subcommands, the subcommand — `npm test` → `npm test *`,
// `git commit -m x` → `git commit *`, `npm run build -- --prod` → `npm run build *`,
// `ls -la` → `ls *`. Never the whole tool. Commands whose effect depends on their arguments
// (rm, mv, curl, sudo, git push …) get no session rule: they are asked about every time.
import { escapeCommandPattern } from "./commandMatch.ts";
import { programName } from "./commandNormalize.ts";

/** Programs whose second word is a subcommand. */
const SUBCOMMANDS: ReadonlySet<string> = new Set([
  "git",
  "npm",
  "pnpm",
  "yarn",
  "bun",
  "npx",
  "bunx",
  "pnpx",
  "deno",
  "cargo",
  "go",
  "rustup",
  "docker",
  "podman",
  "kubectl",
  "helm",
  "pip",
  "pip3",
  "poetry",
  "uv",
  "gh",
  "make",
  "terraform",
  "dotnet",
  "mvn",
  "mvnw",
  "gradle",
  "gradlew",
  "brew",
  "apt",
  "apt-get",
  "systemctl",
  "composer",
  "mix",
  "bundle",
  "rake",
  "swift",
  "zig",
  "nx",
  "turbo",
  "tsc",
  "vite",
]);

/** `<program> <subcommand>` pairs whose third word is part of the command too. */
const THIRD_WORD: ReadonlySet<string> = new Set([
  "npm run",
  "pnpm run",
  "yarn run",
  "bun run",
  "uv run",
  "poetry run",
  "npm exec",
  "docker compose",
  "gh pr",
  "gh issue",
  "gh repo",
  "gh run",
  "go mod",
  "cargo install",
]);

/** Interpreters: `python -m pytest` → `python -m pytest *`; with -c/-e the code is the argument. */
const INTERPRETERS: ReadonlySet<string> = new Set(["python", "python3", "node", "ruby", "perl", "php"]);

/** Never remembered for a session: the arguments are the whole risk. */
const ASK_EVERY_TIME: ReadonlySet<string> = new Set([
  "rm",
  "rmdir",
  "mv",
  "dd",
  "shred",
  "truncate",
  "chmod",
  "chown",
  "chgrp",
  "kill",
  "pkill",
  "killall",
  "curl",
  "wget",
  "ssh",
  "scp",
  "sftp",
  "rsync",
  "nc",
  "ncat",
  "socat",
  "sudo",
  "su",
  "doas",
  "eval",
  "exec",
  "source",
  ".",
  "sh",
  "bash",
  "zsh",
  "dash",
  "fish",
  "xargs",
  "find",
  "env",
  "nohup",
  "timeout",
  "osascript",
  // They change the shell for the commands after them (export PATH=…; …).
  "export",
  "declare",
  "typeset",
  "readonly",
  "local",
  "set",
  "unset",
  "alias",
]);

const RISKY_SUBCOMMANDS: ReadonlySet<string> = new Set([
  "git push",
  "git reset",
  "git clean",
  "git rebase",
  "git filter-branch",
  "npm publish",
  "cargo publish",
  "docker run",
  "kubectl delete",
  "kubectl apply",
  "terraform apply",
  "terraform destroy",
]);

/** The session pattern for one simple command (words as written), or undefined when none fits. */
export function sessionPrefix(words: readonly string[]): string | undefined {
  const [first, second, third] = words;
  if (first === undefined || first.length === 0) return undefined;
  const name = programName(first);
  if (ASK_EVERY_TIME.has(name) || /^[A-Za-z_][A-Za-z0-9_]*=/.test(first)) return undefined;
  const prefix: string[] = [first];
  if (INTERPRETERS.has(name)) {
    if (second === "-m" && third !== undefined) prefix.push(second, third);
    else if (second !== undefined && (second.startsWith("-") || second.length === 0)) return undefined;
    else if (second !== undefined) prefix.push(second);
  } else if (SUBCOMMANDS.has(name) && second !== undefined) {
    if (second.startsWith("-")) return undefined;
    prefix.push(second);
    if (RISKY_SUBCOMMANDS.has(`${name} ${second}`)) return undefined;
    if (THIRD_WORD.has(`${name} ${second}`) && third !== undefined && !third.startsWith("-")) prefix.push(third);
  }
  return `${escapeCommandPattern(prefix.join(" "))} *`;
}
