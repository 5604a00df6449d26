// ~/.garuda/mcp-approved.json: each project MCP server's tool list as the user last approved it
// ("remember"), as tool names with a short hash of each tool's description and schema. A question
// about a list that changed since, in a later session, can then say what was added, changed or
// removed. It explains, it does not trust: trust.json's pin decides. A missing or broken file is
// no list (the question then shows the tools as they are); a failed write is ignored.
import { readFileSync } from "node:fs";
import { writeFileAtomic } from "../files/atomicWrite.ts";
import { trustRoot } from "./trust.ts";

/** Tool name → a short hash of what the tool says it is (description and input schema). */
export type ToolKeys = Record<string, string>;

type ListsFile = Record<string, Record<string, ToolKeys>>;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

export class ApprovedToolLists {
  constructor(readonly path: string) {}

  #read(): ListsFile {
    try {
      const parsed: unknown = JSON.parse(readFileSync(this.path, "utf8"));
      return isRecord(parsed) ? (parsed as ListsFile) : {};
    } catch {
      return {};
    }
  }

  get(root: string, server: string): ToolKeys | undefined {
    const keys = this.#read()[trustRoot(root)]?.[server];
    if (!isRecord(keys)) return undefined;
    return Object.fromEntries(
      Object.entries(keys).filter((entry): entry is [string, string] => typeof entry[1] === "string"),
    );
  }

  set(root: string, server: string, keys: ToolKeys): void {
    const data = this.#read();
    const key = trustRoot(root);
    data[key] = { ...(isRecord(data[key]) ? data[key] : {}), [server]: keys };
    try {
      writeFileAtomic(this.path, `${JSON.stringify(data, null, 2)}\n`, { mode: 0o600, dirMode: 0o700 });
    } catch {
      // Only the next question's detail is lost.
    }
  }
}
