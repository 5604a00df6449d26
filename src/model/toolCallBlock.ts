// Where a ```tool_call block ends, found in streamed text that reads each character once: the
// stream may bring a block of a megabyte in pieces of a few characters, and scanning the whole
// block again at every piece (or even indexing a string built by +=, which copies it) would take
// seconds to minutes, on the event loop every session shares.
//
// The rules (textToolCalls.ts uses them): the JSON starts after the rest of the fence line when
// that holds no brace (```tool_call json), else at once. The block ends after the first JSON
// object's closing brace when a closing fence follows it; failing that, at the first line that
// starts with a fence (a raw newline cannot occur inside a JSON string, so valid JSON never
// has one). Each push() decides on all the text so far, as if it had come in one piece.

export const CLOSE_FENCE = "```";

/** Where a block ends, as indices into the text after its opening fence. */
export interface BlockEnd {
  /** Where its JSON starts. */
  start: number;
  /** Where its JSON ends. */
  body: number;
  /** Just after the closing fence. */
  after: number;
}

const isBlank = (char: string) => /\s/.test(char);

/** The end of one block, found as its text comes. */
export class BlockScanner {
  readonly #parts: string[] = [];
  #length = 0;
  /** Body start: unknown until the first line holds a brace or ends; the first line is kept until then. */
  #start: number | undefined;
  #firstLine = "";
  #lineBlank = true;
  /** The first object: what the scan has seen of it. */
  #object: "blank" | "inside" | "ended" | "none" = "blank";
  #depth = 0;
  #inString = false;
  #escaped = false;
  /** Just after the object's closing brace; where the blanks after it end, and what follows them. */
  #end = -1;
  #restAt = -1;
  #restHead = "";
  /** The fallback: a line that starts with a fence. */
  #candidate = -1;
  #ticks = 0;
  #fence: { index: number; length: number } | undefined;

  /** Everything pushed so far. */
  get text(): string {
    if (this.#parts.length > 1) this.#parts.splice(0, this.#parts.length, this.#parts.join(""));
    return this.#parts[0] ?? "";
  }

  push(chunk: string): BlockEnd | undefined {
    const base = this.#length;
    this.#parts.push(chunk);
    this.#length += chunk.length;
    for (let i = 0; i < chunk.length; i++) {
      const char = chunk[i] as string;
      const at = base + i;
      if (this.#start === undefined) this.#findStart(char, at);
      else this.#scanObject(char, at);
      this.#scanFence(char, at);
    }
    return this.#decide();
  }

  #findStart(char: string, at: number): void {
    this.#firstLine += char;
    if (char === "{") this.#start = 0;
    else if (char === "\n") this.#start = this.#lineBlank ? 0 : at + 1;
    else if (!isBlank(char)) this.#lineBlank = false;
    // From the start on, the object scan takes the characters it has not seen.
    if (this.#start === 0)
      for (let i = 0; i < this.#firstLine.length; i++) this.#scanObject(this.#firstLine[i] as string, i);
    if (this.#start !== undefined) this.#firstLine = "";
  }

  #scanObject(char: string, at: number): void {
    switch (this.#object) {
      case "none":
        return;
      case "ended":
        if (this.#restHead === "" && isBlank(char)) return;
        if (this.#restHead === "") this.#restAt = at;
        if (this.#restHead.length < CLOSE_FENCE.length) this.#restHead += char;
        return;
      case "blank":
        if (isBlank(char)) return;
        if (char !== "{") {
          this.#object = "none";
          return;
        }
        this.#object = "inside";
    }
    if (this.#escaped) this.#escaped = false;
    else if (this.#inString) {
      if (char === "\\") this.#escaped = true;
      else if (char === '"') this.#inString = false;
    } else if (char === '"') this.#inString = true;
    else if (char === "{") this.#depth++;
    else if (char === "}" && --this.#depth === 0) {
      this.#object = "ended";
      this.#end = at + 1;
    }
  }

  #scanFence(char: string, at: number): void {
    if (this.#fence) return;
    if (char === "\n") {
      this.#candidate = at;
      this.#ticks = 0;
    } else if (this.#candidate < 0) return;
    else if (char === "`") {
      if (++this.#ticks === CLOSE_FENCE.length)
        this.#fence = { index: this.#candidate, length: at + 1 - this.#candidate };
    } else if (this.#ticks > 0 || (char !== " " && char !== "\t")) this.#candidate = -1;
  }

  #decide(): BlockEnd | undefined {
    const start = this.#start;
    if (start === undefined) return undefined;
    if (this.#object === "ended") {
      const next = this.#restHead;
      if (next === CLOSE_FENCE) return { start, body: this.#end, after: this.#restAt + CLOSE_FENCE.length };
      // Blanks or the start of a fence: the rest is still coming.
      if (next.length < CLOSE_FENCE.length && CLOSE_FENCE.startsWith(next)) return undefined;
    }
    const fence = this.#fence;
    return fence
      ? { start: Math.min(start, fence.index), body: fence.index, after: fence.index + fence.length }
      : undefined;
  }
}
