// The end of a plain-HTTP request's body, found as its bytes pass through the egress proxy
// (httpHead.ts bodyFraming says how it is framed). The proxy lets one request through per
// connection: what the client sends after the body (a pipelined or keep-alive request, which
// may name any host) never reaches the origin, which was asked to close after its answer.
import type { BodyFraming } from "./httpHead.ts";

/** Longest chunk-size line or trailer line read; the whole trailer section is bounded too. */
const MAX_LINE = 4096;
const MAX_TRAILER = 64 * 1024;

type State =
  | { at: "data"; left: number; chunked: boolean }
  | { at: "dataEnd"; seen: number }
  | { at: "sizeLine"; line: number[] }
  | { at: "trailer"; line: number[]; total: number }
  | { at: "done" };

export class RequestBody {
  private state: State;

  constructor(framing: Exclude<BodyFraming, { kind: "invalid" }>) {
    this.state =
      framing.kind === "chunked"
        ? { at: "sizeLine", line: [] }
        : framing.length > 0
          ? { at: "data", left: framing.length, chunked: false }
          : { at: "done" };
  }

  /** The body has ended: nothing more goes to the origin. */
  get complete(): boolean {
    return this.state.at === "done";
  }

  /**
   * The part of `bytes` that belongs to the body (a view, not a copy): empty once it has ended;
   * undefined when the chunked framing is broken (the connection must be closed, as the origin
   * has part of a request it cannot finish).
   */
  take(bytes: Uint8Array): Uint8Array | undefined {
    let i = 0;
    while (i < bytes.byteLength) {
      const state = this.state;
      if (state.at === "done") return bytes.subarray(0, i);
      if (state.at === "data") {
        const step = Math.min(state.left, bytes.byteLength - i);
        state.left -= step;
        i += step;
        if (state.left === 0) this.state = state.chunked ? { at: "dataEnd", seen: 0 } : { at: "done" };
        continue;
      }
      const byte = bytes[i++] as number;
      if (state.at === "dataEnd") {
        if (byte !== (state.seen === 0 ? 13 : 10)) return undefined;
        if (++state.seen === 2) this.state = { at: "sizeLine", line: [] };
        continue;
      }
      const line = state.line;
      line.push(byte);
      if (state.at === "trailer" && ++state.total > MAX_TRAILER) return undefined;
      if (line.length > MAX_LINE) return undefined;
      if (byte !== 10) continue;
      // A line ends at CRLF only: a bare CR or LF anywhere in it is refused, as an origin might end it there.
      const text = String.fromCharCode(...line.slice(0, -2));
      if (line[line.length - 2] !== 13 || /[\r\n]/.test(text)) return undefined;
      if (state.at === "trailer") {
        if (text === "") this.state = { at: "done" };
        else state.line = [];
        continue;
      }
      const size = /^([0-9a-fA-F]{1,12})[ \t]*(;[^\x00-\x08\x0a-\x1f\x7f]*)?$/.exec(text);
      if (!size) return undefined;
      const left = Number.parseInt(size[1] as string, 16);
      this.state = left === 0 ? { at: "trailer", line: [], total: 0 } : { at: "data", left, chunked: true };
    }
    return bytes;
  }
}
