// The terminal output stream: what a command printed, cleaned for the editor's terminal view
// (escape sequences out even when a chunk cuts one, hidden characters shown), and batched (the
// first chunk at once, then at most one update per 50 ms and one waiting to be written, a backlog
// in full-size updates back to back, nothing lost, nothing after the end).
import { describe, expect, test } from "bun:test";
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import {
  BATCH_MS,
  HIGH_WATER_CHARS,
  isTerminalCall,
  MAX_UPDATE_CHARS,
  TerminalStream,
  TerminalText,
  wantsTerminalOutput,
} from "../../src/acp/terminalOutput.ts";

const data = (update: SessionUpdate) =>
  update.sessionUpdate === "tool_call_update" ? ((update._meta?.terminal_output as { data: string }).data ?? "") : "";

describe("cleaning", () => {
  test(
    "colours, cursor moves, titles, clipboard writes and hyperlinks are removed; a " +
      "sequence cut between chunks is removed whole",
    () => {
      const text = new TerminalText();
      const chunks = [
        "a\u001b[3",
        "1mred\u001b[0m\n",
        "b\u001b]52;c;ZXZpbA==\u001b",
        "\\c\u001b]0;title\u0007d\u001b]8;;https://evil.example\u001b\\link\u001b]8;;\u001b\\\n",
        "\u001b(B\u001b[mplain\u001b[2K\u001b[1A\n",
        "\u001bP1$r0m\u001b\\dcs gone\n",
      ];
      expect(chunks.map((chunk) => text.push(chunk)).join("") + text.end()).toBe("ared\nbcdlink\nplain\ndcs gone\n");
    },
  );

  test("hidden characters are shown as ⟨U+XXXX⟩; newlines, tabs, carriage returns and blank runs stay", () => {
    const text = new TerminalText();
    const out = text.push(
      `tab\there\r\nbidi\u202eevil\u2066 zero\u200bwidth bell\u0007 back\u0008 ${" ".repeat(40)}col\n`,
    );
    expect(out).toBe(
      `tab\there\r\nbidi⟨U+202E⟩evil⟨U+2066⟩ zero⟨U+200B⟩width bell⟨U+0007⟩ back⟨U+0008⟩ ${" ".repeat(40)}col\n`,
    );
  });

  test("an escape left unfinished at the end is shown, not swallowed; a lone ESC in the middle is shown", () => {
    const text = new TerminalText();
    expect(text.push("x\u001b")).toBe("x");
    expect(text.end()).toBe("⟨U+001B⟩");
    expect(new TerminalText().push("a\u001b\nb")).toBe("a⟨U+001B⟩\nb");
    // An OSC that never ends within the hold limit is not held forever: its start goes, its text shows.
    const long = new TerminalText();
    expect(long.push(`\u001b]0;${"t".repeat(5000)}`)).toBe(`0;${"t".repeat(5000)}`);
  });

  test("which calls are terminals, and which clients want them", () => {
    expect(isTerminalCall("bash", { command: "ls" })).toBe(true);
    expect(isTerminalCall("process_manager", { action: "start", command: "npm run dev" })).toBe(true);
    expect(isTerminalCall("process_manager", { action: "output", id: "p1" })).toBe(false);
    expect(isTerminalCall("read_file", { path: "a" })).toBe(false);
    expect(wantsTerminalOutput({ _meta: { terminal_output: true } })).toBe(true);
    expect(wantsTerminalOutput({ _meta: { terminal_output: "yes" } })).toBe(false);
    expect(wantsTerminalOutput({})).toBe(false);
    expect(wantsTerminalOutput(undefined)).toBe(false);
  });
});

/** A sink whose writes complete when the test says so, on a clock the test moves. */
function sink() {
  const sent: SessionUpdate[] = [];
  let clock = 0;
  let release: (() => void) | undefined;
  return {
    sent,
    advance: (ms: number) => {
      clock += ms;
    },
    finishWrite: () => {
      const done = release;
      release = undefined;
      done?.();
    },
    sink: {
      send: (update: SessionUpdate) => sent.push(update),
      written: () =>
        new Promise<void>((resolve) => {
          release = resolve;
        }),
      now: () => clock,
    },
  };
}

describe("batching", () => {
  test(
    "the first chunk goes at once; later ones wait for the interval and for the " +
      "last write; the end sends the rest, nothing after",
    async () => {
      const s = sink();
      const stream = new TerminalStream("t1", s.sink);
      stream.push("one\n");
      expect(s.sent.map(data)).toEqual(["one\n"]);
      stream.push("two\n");
      stream.push("three\n");
      // The first is not written yet: nothing more goes out, whatever the time.
      s.advance(BATCH_MS * 3);
      await Bun.sleep(BATCH_MS + 10);
      expect(s.sent).toHaveLength(1);
      s.finishWrite();
      await Bun.sleep(1);
      expect(s.sent.map(data)).toEqual(["one\n", "two\nthree\n"]);
      stream.push("four\n");
      const rest = stream.end();
      expect(rest.map(data)).toEqual(["four\n"]);
      stream.push("late\n");
      s.finishWrite();
      await Bun.sleep(BATCH_MS + 10);
      expect(s.sent.map(data)).toEqual(["one\n", "two\nthree\n"]);
      expect(stream.sentChars).toBe("one\ntwo\nthree\nfour\n".length);
    },
  );

  test(
    "a backlog goes out in updates of at most MAX_UPDATE_CHARS, back to back, never " + "splitting a surrogate pair",
    async () => {
      const s = sink();
      const stream = new TerminalStream("t2", s.sink);
      const big = `${"x".repeat(MAX_UPDATE_CHARS - 1)}😀${"y".repeat(MAX_UPDATE_CHARS)}`;
      stream.push(big);
      expect(s.sent).toHaveLength(1);
      expect(data(s.sent[0] as SessionUpdate)).toHaveLength(MAX_UPDATE_CHARS - 1);
      s.finishWrite();
      await Bun.sleep(1);
      expect(s.sent).toHaveLength(2);
      const rest = stream.end();
      expect([...s.sent, ...rest].map(data).join("")).toBe(big);
    },
  );

  test(
    "past the high-water mark push() answers a promise: it settles when a write " +
      "brings the queue down, or at the end",
    async () => {
      const s = sink();
      const stream = new TerminalStream("t3", s.sink);
      expect(stream.push("a".repeat(1000))).toBeUndefined();
      const held = stream.push("b".repeat(HIGH_WATER_CHARS + 1));
      expect(held).toBeInstanceOf(Promise);
      let settled = false;
      void held?.then(() => {
        settled = true;
      });
      await Bun.sleep(5);
      expect(settled).toBe(false);
      s.finishWrite();
      await Bun.sleep(5);
      expect(settled).toBe(true);
      // Held again, and the end lets go whatever the editor does.
      const again = stream.push("c".repeat(HIGH_WATER_CHARS * 2));
      let ended = false;
      void again?.then(() => {
        ended = true;
      });
      const rest = stream.end();
      await Bun.sleep(1);
      expect(ended).toBe(true);
      expect([...s.sent, ...rest].map(data).join("")).toBe(
        `${"a".repeat(1000)}${"b".repeat(HIGH_WATER_CHARS + 1)}${"c".repeat(HIGH_WATER_CHARS * 2)}`,
      );
    },
  );
});
