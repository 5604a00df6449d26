// What one model response cost in tokens. Here, not in model/, because step_end events and the
// session file carry it and core-types imports nothing else of src/.

export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheCreationTokens: number;
  /** True when the provider reported no usage and the numbers are an estimate. */
  estimated?: boolean;
}
