// The path for scripts and tests: `garuda setup --model <spec> --key-stdin [--no-check]`, and
// `garuda setup --model <provider>/<model>` for a keyless provider (a local server).
import { StringDecoder } from "node:string_decoder";
import { findModel } from "../../config/modelsFile.ts";
import { messageOf } from "../../errors/caught.ts";
import type { ModelInfo, ProviderInfo } from "../../model/catalog.ts";
import { checkKey } from "./check.ts";
import { secret } from "./prompts.ts";
import { saveSetup, type SetupResult, summaryLines } from "./save.ts";
import { checkServerModel, modelsFileEntry } from "./serverModels.ts";
import { keyProblem, MAX_KEY_LENGTH, providerBaseUrl, type SetupState, unknownModelProblem } from "./state.ts";
import { SetupCancelled, type SetupIO, TerminalSession } from "./terminal.ts";

/** The first line of a stream (without its line end); the rest is left unread. */
export function readFirstLine(stream: NodeJS.ReadableStream, maxLength = MAX_KEY_LENGTH * 2): Promise<string> {
  return new Promise((resolve, reject) => {
    const decoder = new StringDecoder("utf8");
    let text = "";
    const finish = (error?: Error) => {
      stream.off("data", onData);
      stream.off("end", onEnd);
      stream.off("error", onError);
      stream.pause();
      if (error) reject(error);
      else resolve(text);
    };
    const onData = (chunk: Buffer | string) => {
      text += typeof chunk === "string" ? chunk : decoder.write(chunk);
      const end = text.search(/\r?\n/);
      if (end >= 0) {
        text = text.slice(0, end);
        finish();
      } else if (text.length > maxLength) {
        finish(new Error("the first line of stdin is too long for a key"));
      }
    };
    const onEnd = () => {
      text += decoder.end();
      finish();
    };
    const onError = (error: Error) => finish(error);
    stream.on("data", onData);
    stream.on("end", onEnd);
    stream.on("error", onError);
    stream.resume();
  });
}

/** Reads the key: one line from a pipe, or hidden like the interactive prompt from a terminal. */
async function readKey(io: SetupIO, state: SetupState): Promise<string> {
  // A terminal would echo a line typed in it: read it in raw mode, hidden, instead.
  if (!io.stdin.isTTY || typeof io.stdin.setRawMode !== "function") return (await readFirstLine(io.stdin)).trim();
  const session = new TerminalSession(io, state.ctx.env);
  try {
    return await secret(session, "Key: ");
  } finally {
    session.close();
  }
}

export interface StdinOptions {
  model?: string;
  check: boolean;
  checkTimeoutMs?: number;
}

/** Returns the exit code: 0 saved, 1 refused, unchecked or no key, 2 no model given. */
export async function runWithStdinKey(io: SetupIO, state: SetupState, options: StdinOptions): Promise<number> {
  const spec = options.model ?? state.catalog.default;
  if (!spec) {
    io.stderr.write("garuda setup: --key-stdin needs --model <model> (there is no default model yet).\n");
    return 2;
  }
  // A name Garuda does not know is refused before stdin is read or any request is made.
  const unknown = unknownModelProblem(state, spec);
  if (unknown) {
    io.stderr.write(`garuda setup: ${unknown}\n`);
    return 2;
  }
  const model = findModel(state.catalog, spec);
  const provider = state.catalog.providers[model.provider] as ProviderInfo;
  // A local server needs no key: stdin is not read.
  if (!provider.apiKeyEnv) return runKeyless(io, state, model, options);

  let value: string;
  try {
    value = await readKey(io, state);
  } catch (error) {
    if (error instanceof SetupCancelled) {
      io.stderr.write("Setup cancelled. Nothing was saved.\n");
      return error.exitCode;
    }
    io.stderr.write(`garuda setup: could not read the key: ${messageOf(error)}. Nothing was saved.\n`);
    return 1;
  }
  const problem = keyProblem(value);
  if (problem) {
    io.stderr.write(
      `garuda setup: ${problem === "No key was entered" ? "no key on stdin" : problem}. Nothing was saved.\n`,
    );
    return 1;
  }
  const key = { name: provider.apiKeyEnv, kind: "apiKey" as const, value, source: "credentials" as const };
  let checked: SetupResult["checked"] = "skipped";
  if (options.check) {
    const result = await checkKey({
      baseUrl: providerBaseUrl(state, provider),
      key,
      api: provider,
      ...(options.checkTimeoutMs ? { timeoutMs: options.checkTimeoutMs } : {}),
    });
    if (result.result === "refused") {
      io.stderr.write(
        `garuda setup: the key was refused (HTTP ${result.status} from ${result.url}). Nothing was saved.\n`,
      );
      return 1;
    }
    if (result.result === "unchecked") {
      io.stderr.write(
        `garuda setup: the key could not be checked: ${result.reason}. Nothing was ` +
          `saved. Are you offline? To save it without checking, add --no-check.\n`,
      );
      return 1;
    }
    checked = "ok";
  }
  const result: SetupResult = { spec: model.spec, key, newKey: true, checked };
  const outcome = saveSetup(state, result);
  io.stdout.write(`${summaryLines(state, result, outcome).join("\n")}\n`);
  return 0;
}

/** The model of `spec` when its provider needs no key (a local server), else undefined. */
export function keylessModel(state: SetupState, spec: string): ModelInfo | undefined {
  const model = findModel(state.catalog, spec);
  const provider = state.catalog.providers[model.provider];
  return provider && !provider.apiKeyEnv ? model : undefined;
}

/**
 * A keyless model from a script (`garuda setup --model ollama/<model>` without a terminal):
 * nothing to read; the server is asked whether it runs and has the model, unless --no-check.
 * Returns 0 when saved, 1 when the check failed (nothing saved).
 */
export async function runKeyless(
  io: SetupIO,
  state: SetupState,
  model: ModelInfo,
  options: StdinOptions,
): Promise<number> {
  const provider = state.catalog.providers[model.provider] as ProviderInfo;
  const baseUrl = providerBaseUrl(state, provider);
  let checked: SetupResult["checked"] = "skipped";
  let modelEntry: SetupResult["modelEntry"];
  if (options.check && baseUrl) {
    const check = await checkServerModel({
      provider,
      baseUrl,
      model,
      ...(options.checkTimeoutMs ? { timeoutMs: options.checkTimeoutMs } : {}),
    });
    if (!check.ok) {
      io.stderr.write(
        `garuda setup: ${check.problem} Nothing was saved. To save it without checking, add --no-check.\n`,
      );
      return 1;
    }
    checked = "ok";
    if (check.listed && !state.catalog.models.has(model.spec)) modelEntry = modelsFileEntry(check.listed, provider);
  }
  const result: SetupResult = { spec: model.spec, newKey: false, checked, ...(modelEntry && { modelEntry }) };
  const outcome = saveSetup(state, result);
  io.stdout.write(`${summaryLines(state, result, outcome).join("\n")}\n`);
  return 0;
}
