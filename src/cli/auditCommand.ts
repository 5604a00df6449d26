// `garuda audit verify [FILE…]`: checks audit logs' hash chains (src/store/auditVerify.ts). With
// no file, every log of the project in the current folder (~/.garuda/audit/<project>-<hash>/).
// Exit 0 when every log is whole, 1 when one is not (or cannot be read), 2 for a wrong command.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { defineCommand } from "citty";
import { messageOf } from "../errors/caught.ts";
import { auditFolder } from "../store/audit.ts";
import { verifyAuditLog } from "../store/auditVerify.ts";
import { createCliContext } from "./context.ts";

function projectLogs(auditDir: string, root: string): { folder: string; files: string[] } {
  const folder = auditFolder(auditDir, root);
  try {
    const files = readdirSync(folder)
      .filter((name) => name.endsWith(".jsonl"))
      .sort();
    return { folder, files: files.map((name) => join(folder, name)) };
  } catch {
    return { folder, files: [] };
  }
}

/** One line per log: whole (and how many lines), or the first problem. */
function verifyLine(file: string): { ok: boolean; text: string } {
  try {
    const result = verifyAuditLog(file);
    if (result.ok) return { ok: true, text: `ok      ${file} (${result.lines} line${result.lines === 1 ? "" : "s"})` };
    return { ok: false, text: `BROKEN  ${file}: ${result.problem?.detail ?? "unknown problem"}` };
  } catch (error) {
    return { ok: false, text: `ERROR   ${file}: ${messageOf(error)}` };
  }
}

export const auditCommand = defineCommand({
  meta: {
    name: "audit",
    description: "Check audit logs: `garuda audit verify [FILE…]` (default: this folder's logs).",
  },
  args: {
    action: { type: "positional", required: true, description: "verify", valueHint: "verify" },
  },
  run({ args }): number {
    if (args.action !== "verify") {
      process.stderr.write(`garuda audit: unknown action "${args.action}". Use: garuda audit verify [FILE…]\n`);
      return 2;
    }
    const given = args._.slice(1);
    let files = given;
    if (given.length === 0) {
      const ctx = createCliContext(process.env);
      const logs = projectLogs(ctx.paths.audit, process.cwd());
      if (logs.files.length === 0) {
        process.stdout.write(`No audit logs for this folder (looked in ${logs.folder}).\n`);
        return 0;
      }
      files = logs.files;
    }
    const results = files.map(verifyLine);
    process.stdout.write(`${results.map((result) => result.text).join("\n")}\n`);
    const broken = results.filter((result) => !result.ok).length;
    if (broken > 0)
      process.stdout.write(
        `${broken} of ${results.length} log${results.length === 1 ? "" : "s"} failed ` +
          `the check. A log cannot show lines cut off its end or a file deleted whole.\n`,
      );
    return broken > 0 ? 1 : 0;
  },
});
