// The shape check of one session record read back from a file. A file may be damaged (a torn
// line, a hand edit) or written by another version of Garuda, and what it holds goes back to the
// model and to the editor: a record that would break either is skipped (and reported), a missing
// field with an obvious default gets it, and a record of a kind this version does not know is
// skipped with its kind named.
import { MODES } from "../permission/modes.ts";
import type { SessionRecord } from "./sessionRecords.ts";
import { isMessageId } from "./messageIds.ts";

type Fields = Record<string, unknown>;

const isObject = (value: unknown): value is Fields =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const isString = (value: unknown): value is string => typeof value === "string";
const isNumber = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value);
const isMode = (value: unknown) => isString(value) && (MODES as readonly string[]).includes(value);

const ZERO_USAGE = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheCreationTokens: 0 };

function userBlockOk(block: unknown): boolean {
  if (!isObject(block)) return false;
  if (block.type === "text") return isString(block.text);
  if (block.type === "tool_result") return isString(block.toolUseId) && isString(block.content);
  return false;
}

function assistantBlockOk(block: unknown): boolean {
  if (!isObject(block)) return false;
  switch (block.type) {
    case "text":
      return isString(block.text);
    case "thinking":
      return isString(block.thinking);
    case "redacted_thinking":
      return isString(block.data);
    case "tool_use":
    case "server_tool_use":
      return isString(block.id) && isString(block.name);
    case "server_tool_result":
      return isString(block.toolUseId) && isString(block.blockType);
    default:
      return false;
  }
}

function promptBlockOk(block: unknown): boolean {
  if (!isObject(block)) return false;
  if (block.type === "text") return isString(block.text);
  if (block.type === "link") return isString(block.uri) && isString(block.name);
  if (block.type === "resource") return isString(block.uri) && isString(block.text);
  return false;
}

const STATUSES = new Set(["completed", "failed", "denied"]);

function resultOk(result: unknown): boolean {
  return isObject(result) && isString(result.callId) && isString(result.content);
}

/** A result as this version reads it: the status from isError when an older file has none. */
function normalResult(result: Fields): Fields {
  const isError = result.isError === true;
  const status =
    isString(result.status) && STATUSES.has(result.status) ? result.status : isError ? "failed" : "completed";
  const info =
    isObject(result.info) &&
    isString(result.info.title) &&
    isString(result.info.kind) &&
    Array.isArray(result.info.locations)
      ? result.info
      : undefined;
  const change =
    isObject(result.change) && isString(result.change.path) && isString(result.change.newText)
      ? result.change
      : undefined;
  const { info: _info, change: _change, ...rest } = result;
  return {
    ...rest,
    tool: isString(result.tool) ? result.tool : "",
    isError,
    status,
    ...(info && { info }),
    ...(change && { change }),
  };
}

/**
 * The record without ids that are not plain short tokens (a hand edit): they go to the editor as
 * they are, so a bad one is dropped and the message gets the id of its position instead.
 */
function withoutBadIds(record: Fields): Fields {
  const { messageId, messageIds, id, ...rest } = record;
  return {
    ...rest,
    ...(isMessageId(messageId) && { messageId }),
    ...(Array.isArray(messageIds) && messageIds.every(isMessageId) && { messageIds }),
    ...(isMessageId(id) && { id }),
  };
}

/** The record, with defaults for what an older file lacks; or why it cannot be used. */
export function checkRecord(value: unknown): SessionRecord | string {
  if (!isObject(value) || !isString(value.type)) return "the line is not a session record";
  const record = { ...value, t: isString(value.t) ? value.t : "" };
  const invalid = `the ${value.type} record is incomplete`;
  switch (value.type) {
    case "start":
      if (!isString(value.root)) return invalid;
      return {
        ...record,
        model: isString(value.model) ? value.model : "",
        mode: isMode(value.mode) ? value.mode : "build",
      } as SessionRecord;
    case "resume":
      return {
        ...record,
        model: isString(value.model) ? value.model : "",
        mode: isMode(value.mode) ? value.mode : "build",
      } as SessionRecord;
    case "user":
      if (!Array.isArray(value.content) || !value.content.every(userBlockOk)) return invalid;
      if (value.shown !== undefined && !(Array.isArray(value.shown) && value.shown.every(promptBlockOk)))
        return invalid;
      return withoutBadIds({ ...record, prompt: isString(value.prompt) ? value.prompt : "" }) as SessionRecord;
    case "assistant":
      if (!Array.isArray(value.content) || !value.content.every(assistantBlockOk)) return invalid;
      return withoutBadIds({
        ...record,
        step: isNumber(value.step) ? value.step : 0,
        stopReason: isString(value.stopReason) ? value.stopReason : "end_turn",
        usage: isObject(value.usage) ? { ...ZERO_USAGE, ...value.usage } : ZERO_USAGE,
      }) as SessionRecord;
    case "tool_results":
      if (!Array.isArray(value.results) || !value.results.every(resultOk)) return invalid;
      return { ...record, results: (value.results as Fields[]).map(normalResult) } as unknown as SessionRecord;
    case "compaction":
      if (!isNumber(value.beforeTokens) || !isNumber(value.afterTokens)) return invalid;
      if (value.pruned !== undefined && !Array.isArray(value.pruned)) return invalid;
      if (
        (value.keptFrom === undefined) !== (value.summary === undefined) ||
        (value.keptFrom !== undefined && (!isNumber(value.keptFrom) || !isString(value.summary)))
      )
        return invalid;
      return withoutBadIds(record) as SessionRecord;
    case "mode":
      return isMode(value.mode) ? (record as SessionRecord) : invalid;
    case "model":
      return isString(value.model) ? (record as SessionRecord) : invalid;
    case "effort":
      return isString(value.effort) ? (record as SessionRecord) : invalid;
    case "end":
      return {
        ...record,
        stopReason: isString(value.stopReason) ? value.stopReason : "done",
        steps: isNumber(value.steps) ? value.steps : 0,
      } as SessionRecord;
    case "title":
      return isString(value.title) ? (record as SessionRecord) : invalid;
    case "notice":
      return isString(value.text)
        ? ({ ...record, level: value.level === "warning" ? "warning" : "info" } as SessionRecord)
        : invalid;
    case "snapshot":
      if (!isString(value.tree) || !/^[0-9a-f]{40,64}$/.test(value.tree)) return invalid;
      return value.before === undefined || isMessageId(value.before) ? (record as SessionRecord) : invalid;
    case "rewind":
      return isMessageId(value.to) ? (record as SessionRecord) : invalid;
    default:
      return `a record of a kind this version of Garuda does not know ("${String(value.type).slice(0, 40)}")`;
  }
}
