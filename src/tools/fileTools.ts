// The file tools of one session: read_file, glob, grep, write_file, edit_file and the code
// index (symbols, find_definition), sharing one read record and one hidden-path predicate.
import { findDefinitionTool } from "./codeIndex/findDefinition.ts";
import { symbolsTool } from "./codeIndex/symbols.ts";
import { editFileTool } from "./editFile.ts";
import type { EditorBuffers } from "./editorBuffers.ts";
import type { FileToolDeps } from "./fileToolDeps.ts";
import { globTool } from "./glob.ts";
import { grepTool } from "./grep.ts";
import { SecretIdentities } from "../files/secretIdentities.ts";
import { secretPlaces } from "../files/secrets.ts";
import { withheldPredicate, type WithheldPredicate } from "./withheldPaths.ts";
import { readFileTool } from "./readFile.ts";
import { ReadTracker } from "./readTracker.ts";
import { SearchThreads } from "./searchWorker.ts";
import { OutlineThread } from "./codeIndex/outlineThread.ts";
import type { Tool } from "./types.ts";
import { writeFileTool } from "./writeFile.ts";

export interface FileToolsOptions {
  /** The user's home folder: the secrets the sandbox hides there are withheld from these tools too. */
  home: string;
  /** Further folders the sandbox hides from commands (the executor's spec: $XDG_RUNTIME_DIR). */
  withheldFromCommands?: readonly string[];
  /** The session's read record (create one per session; share it with anything else that reads for the model). */
  reads?: ReadTracker;
  /**
   * Paths that listing and search must never show, e.g. the team policy's denied paths; absolute
   * paths in, true to withhold. Sensitive files (.env, keys, credentials) are always withheld.
   */
  withheld?: WithheldPredicate;
  /** The session's other project folders, absolute and real: written as the root is (no symlink out of them). */
  extraRoots?: readonly string[];
  /** The editor's unsaved buffers (editorBuffers.ts), read after the path and permission checks. */
  buffers?: EditorBuffers;
  /** The secrets by identity, shared with the permission engine; made from `home` when absent. */
  identities?: SecretIdentities;
  /** Include the code index tools (symbols, find_definition); default true. */
  codeIndex?: boolean;
}

export interface FileTools {
  tools: Tool[];
  deps: FileToolDeps;
}

/** The tools, and the shared state they were built with. */
export function createFileTools(options: FileToolsOptions): FileTools {
  const withheld = withheldPredicate({
    home: options.home,
    ...(options.withheldFromCommands && { withheldFromCommands: options.withheldFromCommands }),
    ...(options.withheld && { extra: options.withheld }),
  });
  const deps: FileToolDeps = {
    reads: options.reads ?? new ReadTracker(),
    withheld,
    searches: new SearchThreads(),
    outlines: new OutlineThread(),
    identities: options.identities ?? new SecretIdentities(secretPlaces(options.home, options.withheldFromCommands)),
    ...(options.extraRoots && { extraRoots: options.extraRoots }),
    ...(options.buffers && { buffers: options.buffers }),
  };
  const tools: Tool[] = [readFileTool(deps), globTool(deps), grepTool(deps), writeFileTool(deps), editFileTool(deps)];
  if (options.codeIndex !== false) tools.push(symbolsTool(deps), findDefinitionTool(deps));
  return { tools, deps };
}

export function fileTools(options: FileToolsOptions): Tool[] {
  return createFileTools(options).tools;
}
