// The chat's input on a fake terminal: an answer typed as a word ("yes" + Enter) answers once and
// leaves nothing for the next prompt, while real type-ahead is kept; Ctrl-Z restores the terminal,
// stops the process and redraws the prompt; TERM=dumb (or no TERM) reads lines the terminal echoes.
import { describe, expect, test } from "bun:test";
import { AnswerTail, type TailStep } from "../../src/cli/chat/answerTail.ts";
import { LineInput } from "../../src/cli/chat/input.ts";
import { type Key, parseKeys } from "../../src/cli/keys.ts";
import { Screen } from "../../src/cli/chat/screen.ts";
import { terminalMode } from "../../src/cli/chat/style.ts";
import {
  ESCAPE_WAIT_MS,
  jobControl,
  TerminalInput,
  type TerminalInputOptions,
} from "../../src/cli/chat/terminalInput.ts";

/** A terminal's stdin that a test types into, recording raw-mode switches. */
function fakeTty() {
  const listeners: { data?: (chunk: string) => void; end?: () => void } = {};
  const rawModes: boolean[] = [];
  return {
    rawModes,
    isTTY: true,
    setRawMode: (mode: boolean) => rawModes.push(mode),
    on: (event: "data" | "end", listener: never) => {
      listeners[event] = listener;
    },
    off: () => {},
    resume: () => {},
    pause: () => {},
    type: (text: string) => listeners.data?.(text),
    end: () => listeners.end?.(),
  };
}

/**
 * A fake terminal; no grace window after a question unless a test asks for one (these tests are about what comes after
 * the answer).
 */
function terminal(options: TerminalInputOptions = {}) {
  const out: string[] = [];
  const tty = fakeTty();
  const screen = new Screen({ write: (text: string) => out.push(text), columns: 80 }, true);
  const input = new TerminalInput(tty, screen, { graceMs: 0, ...options });
  return { tty, input, out, [Symbol.dispose]: () => input.close() };
}

const never = new AbortController().signal;

/** Types `keys` one at a time, each in its own chunk, as a person does. */
function typeEach(tty: ReturnType<typeof fakeTty>, keys: string): void {
  for (const key of keys) tty.type(key);
}

/** The next prompt's text, after `then` typed it (when the tail left nothing, `then` alone). */
async function nextPrompt(term: ReturnType<typeof terminal>, then: string): Promise<string> {
  const prompt = term.input.readPrompt("› ", "  ");
  term.tty.type(then);
  const result = await prompt;
  return result.kind === "text" ? result.text : result.kind;
}

describe("the rest of an answer", () => {
  const steps = (answer: string, typed: string): TailStep["kind"][] => {
    const tail = new AnswerTail(answer);
    return parseKeys(typed).keys.map((key) => tail.take(key).kind);
  };

  test("the rest of an answer word and its Enter are dropped; anything else is given back", () => {
    expect(steps("y", "es\r")).toEqual(["hold", "hold", "drop"]);
    expect(steps("n", "o\r")).toEqual(["hold", "drop"]);
    expect(steps("a", "llow\r")).toEqual(["hold", "hold", "hold", "hold", "drop"]);
    expect(steps("y", "\r")).toEqual(["drop"]);
    expect(steps("2", "\r")).toEqual(["drop"]);
    expect(steps("y", "es please\r")).toEqual([...Array(9).fill("hold"), "drop"]);
    const broken = new AnswerTail("y");
    const keys = parseKeys("el").keys;
    expect(broken.take(keys[0] as Key)).toEqual({ kind: "hold" });
    // "yel…" is no answer word: the "e" was type-ahead after all.
    expect(broken.take(keys[1] as Key)).toEqual({ kind: "release", keys: parseKeys("el").keys });
    // After a lone key, a sign starts what comes next: "y" then "/diff" is a command.
    expect(steps("y", "/")).toEqual(["release"]);
    expect(steps("y", " ")).toEqual(["release"]);
    // "n" then "ow…": "no" was the start of "now", not an answer word.
    const now = new AnswerTail("n");
    expect(now.take({ name: "char", char: "o" })).toEqual({ kind: "hold" });
    expect(now.take({ name: "char", char: "w" })).toEqual({ kind: "release", keys: parseKeys("ow").keys });
  });

  test('"yes" + Enter typed key by key answers once and leaves the next prompt empty', async () => {
    using term = terminal();
    const answer = term.input.readAnswer(never);
    typeEach(term.tty, "yes\r");
    expect(await answer).toBe("y");
    expect(await nextPrompt(term, "next\r")).toBe("next");
  });

  test("a fast or pasted (unbracketed) answer in one chunk: the rest of its line goes with it", async () => {
    for (const typed of ["yes please\r", "no\r", "n\r"]) {
      using term = terminal();
      const answer = term.input.readAnswer(never);
      term.tty.type(typed);
      expect(await answer).toBe(typed[0] as string);
      expect(await nextPrompt(term, "next\r")).toBe("next");
    }
  });

  test("what is typed after the answer that is not its word stays for the next prompt", async () => {
    for (const [typed, kept] of [
      ["yfix it", "fix it"],
      ["y/diff", "/diff"],
      ["nnow", "now"],
      ["yexplain", "explain"],
    ] as const) {
      using term = terminal();
      const answer = term.input.readAnswer(never);
      typeEach(term.tty, typed);
      expect(await answer).toBe(typed[0] as string);
      expect(await nextPrompt(term, "\r")).toBe(kept);
    }
  });

  test("type-ahead from before the question does not answer it and is kept", async () => {
    using term = terminal({ tailMs: 20 });
    term.tty.type("run the tests");
    const answer = term.input.readAnswer(never);
    term.tty.type("n");
    expect(await answer).toBe("n");
    // An Enter right after the "n" would be its own; this one comes later.
    await Bun.sleep(60);
    expect(await nextPrompt(term, "\r")).toBe("run the tests");
  });

  test("a half-typed word is dropped when no more keys come", async () => {
    using term = terminal({ tailMs: 30 });
    const answer = term.input.readAnswer(never);
    typeEach(term.tty, "ye");
    expect(await answer).toBe("y");
    await Bun.sleep(80);
    // The tail is over: an "s" now is the start of a prompt.
    expect(await nextPrompt(term, "sort it\r")).toBe("sort it");
  });

  test("a bracketed paste of one word answers with it", async () => {
    using term = terminal();
    const answer = term.input.readAnswer(never);
    term.tty.type("\x1b[200~yes\x1b[201~");
    expect(await answer).toBe("yes");
  });
});

describe("the grace window after a question is drawn", () => {
  test("keys in it are typing for the prompt (an Enter among them dropped); a key after a pause answers", async () => {
    // A window wide enough that a loaded machine's late timers (40 ms sleeps) stay well inside it.
    using term = terminal({ graceMs: 250, tailMs: 20 });
    let told = 0;
    const answer = term.input.readAnswer(never, { at: performance.now(), kept: () => told++ });
    term.tty.type("y");
    term.tty.type("\r");
    await Bun.sleep(40);
    // Typing that goes on keeps the window open.
    term.tty.type("es");
    await Bun.sleep(40);
    term.tty.type("!");
    await Bun.sleep(500);
    term.tty.type("n");
    expect(await answer).toBe("n");
    expect(told).toBe(1);
    await Bun.sleep(60);
    expect(await nextPrompt(term, "\r")).toBe("yes!");
  });

  test("without the window (the negative control) the same key answers at once", async () => {
    using term = terminal({ graceMs: 0 });
    const answer = term.input.readAnswer(never, { at: performance.now() });
    term.tty.type("y");
    expect(await answer).toBe("y");
  });

  test("Ctrl-C in the window still answers no", async () => {
    using term = terminal({ graceMs: 10_000 });
    const answer = term.input.readAnswer(never);
    term.tty.type("y\x03");
    expect(await answer).toBeUndefined();
  });

  test(
    "a question withdrawn while keys come: none of them answers the question drawn " + "next; all go to the prompt",
    async () => {
      using term = terminal({ graceMs: 60, tailMs: 20 });
      const withdrawn = new AbortController();
      const first = term.input.readAnswer(withdrawn.signal, { at: performance.now() });
      // In the first question's window, then withdrawn; another key before the next one is drawn.
      term.tty.type("y");
      withdrawn.abort();
      expect(await first).toBeUndefined();
      term.tty.type("e");
      const next = term.input.readAnswer(never, { at: performance.now() });
      // As the next question appears.
      term.tty.type("s");
      await Bun.sleep(100);
      term.tty.type("n");
      expect(await next).toBe("n");
      await Bun.sleep(60);
      expect(await nextPrompt(term, "\r")).toBe("yes");
    },
  );

  test("without the window (the negative control) a key as the next question appears answers it", async () => {
    using term = terminal({ graceMs: 0 });
    const withdrawn = new AbortController();
    const first = term.input.readAnswer(withdrawn.signal, { at: performance.now() });
    withdrawn.abort();
    await first;
    const next = term.input.readAnswer(never, { at: performance.now() });
    term.tty.type("y");
    expect(await next).toBe("y");
  });

  test(
    "a question aside a prompt being edited: the prompt keeps its text and cursor " +
      "and gets the keys typed in the window",
    async () => {
      using term = terminal({ graceMs: 60, tailMs: 20 });
      const prompt = term.input.readPrompt("› ", "  ");
      term.tty.type("keep draft\x1b[D\x1b[D\x1b[D\x1b[D\x1b[D");
      await Bun.sleep(10);
      const answer = term.input.aside(async () => {
        const answered = term.input.readAnswer(never, { at: performance.now() });
        term.tty.type("t");
        await Bun.sleep(100);
        term.tty.type("n");
        return answered;
      });
      expect(await answer).toBe("n");
      await Bun.sleep(60);
      term.tty.type("he \r");
      const result = await prompt;
      expect(result).toEqual({ kind: "text", text: "keep the draft" });
    },
  );
});

describe("Esc", () => {
  test("a lone ESC at the end of a chunk waits for the rest of a sequence; none comes: it is Esc", () => {
    expect(parseKeys("a\x1b", { holdCutEscape: true })).toEqual({ keys: [{ name: "char", char: "a" }], rest: "\x1b" });
    expect(parseKeys("\x1b[1;5", { holdCutEscape: true }).rest).toBe("\x1b[1;5");
    expect(parseKeys("\x1b[A", { holdCutEscape: true }).keys).toEqual([{ name: "up" }]);
    expect(parseKeys("\x1b").keys).toEqual([{ name: "escape" }]);
    // Esc Esc in one write: two Escapes, not an Alt key.
    expect(parseKeys("\x1b\x1b").keys).toEqual([{ name: "escape" }, { name: "escape" }]);
  });

  test("during a turn Esc stops it as Ctrl-C does; an arrow whose bytes come apart does not", async () => {
    using term = terminal();
    let stops = 0;
    term.input.onInterrupt(() => stops++);
    term.tty.type("\x1b");
    term.tty.type("[A");
    await Bun.sleep(ESCAPE_WAIT_MS * 2);
    expect(stops).toBe(0);
    term.tty.type("\x1b");
    expect(stops).toBe(0);
    await Bun.sleep(ESCAPE_WAIT_MS * 2);
    expect(stops).toBe(1);
    term.tty.type("\x03");
    expect(stops).toBe(2);
  });

  test("at a question Esc answers it (deny), it does not stop the turn", async () => {
    using term = terminal();
    let stops = 0;
    term.input.onInterrupt(() => stops++);
    const answer = term.input.readAnswer(never);
    term.tty.type("\x1b");
    expect(await answer).toBe("escape");
    expect(stops).toBe(0);
  });
});

describe("Ctrl-Z", () => {
  test(
    "leaves raw mode and bracketed paste, stops the process, then takes both back " + "and redraws the prompt",
    async () => {
      const events: string[] = [];
      using term = terminal({ canStop: () => true, stop: () => events.push("stop") });
      const prompt = term.input.readPrompt("› ", "  ");
      typeEach(term.tty, "draft");
      await Bun.sleep(0);
      term.out.length = 0;
      const modes = term.tty.rawModes.length;
      term.tty.type("\x1a");
      expect(events).toEqual(["stop"]);
      expect(term.tty.rawModes.slice(modes)).toEqual([false, true]);
      const written = term.out.join("");
      expect(written.indexOf("\x1b[?2004l")).toBeLessThan(written.indexOf("\x1b[?2004h"));
      // The prompt is drawn again after the resume, with what was typed.
      expect(written.slice(written.indexOf("\x1b[?2004h"))).toContain("› draft");
      term.tty.type("ed\r");
      expect(await prompt).toEqual({ kind: "text", text: "drafted" });
    },
  );

  test("where no shell could continue it, it says so and does not stop", async () => {
    const events: string[] = [];
    using term = terminal({ canStop: () => false, stop: () => events.push("stop") });
    const prompt = term.input.readPrompt("› ", "  ");
    term.tty.type("a");
    await Bun.sleep(0);
    term.tty.type("\x1a");
    expect(events).toEqual([]);
    expect(term.out.join("").replace(/\r\n +/g, " ")).toContain("Garuda here, so it does not suspend.");
    term.tty.type("\r");
    expect(await prompt).toEqual({ kind: "text", text: "a" });
  });

  test("job control: in the terminal's foreground job, which is not the session leader's group", () => {
    // state, ppid, pgrp, session, tty_nr, tpgid
    expect(jobControl(() => ["S", "100", "200", "100", "34816", "200"])).toBe(true);
    // The session's leader itself (a terminal that runs the chat with no shell).
    expect(jobControl(() => ["S", "1", "200", "200", "34816", "200"])).toBe(false);
    // Not the foreground job, or no terminal at all.
    expect(jobControl(() => ["S", "100", "200", "100", "34816", "300"])).toBe(false);
    expect(jobControl(() => ["S", "100", "200", "100", "0", "-1"])).toBe(false);
    expect(
      jobControl(() => {
        throw new Error("no /proc");
      }),
    ).toBeUndefined();
  });
});

describe("a terminal without cursor control", () => {
  test("TERM=dumb or no TERM: the terminal's own line mode, no colours, no status line", () => {
    const tty = { isTTY: true, setRawMode: () => {} };
    expect(terminalMode(tty, tty, { TERM: "xterm-256color" })).toEqual({ input: "keys", output: "terminal" });
    expect(terminalMode(tty, tty, { TERM: "dumb" })).toEqual({ input: "echoed-lines", output: "plain" });
    expect(terminalMode(tty, tty, {})).toEqual({ input: "echoed-lines", output: "plain" });
    expect(terminalMode({ isTTY: false }, tty, { TERM: "xterm" })).toEqual({ input: "lines", output: "terminal" });
    expect(terminalMode(tty, { isTTY: false }, { TERM: "xterm" })).toEqual({ input: "lines", output: "plain" });
  });

  test("lines the terminal echoes: the prompt is written first and the line is not written again", async () => {
    const out: string[] = [];
    const tty = fakeTty();
    const screen = new Screen({ write: (text: string) => out.push(text) }, false);
    const input = new LineInput(tty, screen, true);
    try {
      const prompt = input.readPrompt("› ");
      expect(out.join("")).toBe("› ");
      tty.type("hello\n");
      expect(await prompt).toEqual({ kind: "text", text: "hello" });
      expect(out.join("")).toBe("› ");
      expect(out.join("")).not.toContain("\x1b");
    } finally {
      input.close();
    }
  });
});
