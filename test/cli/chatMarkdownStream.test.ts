// The chat's MarkdownStream as chunks come (issue 34.1): what a chunk costs does not grow with
// the answer (the lexer sees only the unfinished block, and a long paragraph, list, table or code
// block is cut or streamed line by line), a code block's lines are highlighted once, chunks are
// drawn at most once a frame, and the rows on the screen are those of the answer drawn at once.
import { beforeAll, describe, expect, test } from "bun:test";
import type { Token } from "marked";
import type { MarkdownLibraries } from "../../src/cli/chat/markdown/libraries.ts";
import { MarkdownLoader } from "../../src/cli/chat/markdown/loader.ts";
import { MarkdownStream } from "../../src/cli/chat/markdown/stream.ts";
import { Screen } from "../../src/cli/chat/screen.ts";
import { COLOUR_STYLE } from "../../src/cli/chat/style.ts";
import { renderScreen } from "../support/screenModel.ts";

let real: MarkdownLibraries;
beforeAll(async () => {
  const loader = new MarkdownLoader();
  real = (await loader.load()) as MarkdownLibraries;
});

/** A loader whose libraries count what they were given. */
function counting() {
  const seen = { lexed: 0, highlighted: 0, highlights: 0 };
  const libraries: MarkdownLibraries = {
    lex: (source: string): Token[] => {
      seen.lexed += source.length;
      return real.lex(source);
    },
    highlight: (code: string, language: string) => {
      seen.highlighted += code.length;
      seen.highlights++;
      return real.highlight(code, language);
    },
  };
  return { loader: { libraries, load: async () => libraries } as unknown as MarkdownLoader, seen };
}

function streamed(text: string, chunk: number, frameMs = 0) {
  let raw = "";
  const { loader, seen } = counting();
  const screen = new Screen({ write: (t: string) => (raw += t), columns: 100, rows: 40 }, true, true);
  const stream = new MarkdownStream({ screen, style: COLOUR_STYLE, loader, frameMs });
  for (let i = 0; i < text.length; i += chunk) stream.append(text.slice(i, i + chunk));
  stream.finish();
  return { rows: renderScreen(raw, 100, 100_000).join("\n").trimEnd(), seen };
}

const lines = (count: number, line: (i: number) => string) =>
  Array.from({ length: count }, (_, i) => line(i)).join("\n");
const LONG = {
  paragraph: `${lines(1_000, (i) => `Sentence ${i} of a paragraph with *emphasis* and \`code\`.`)}\n`,
  list: `${lines(1_000, (i) => `${i + 1}. item ${i} with **bold** words`)}\n`,
  table: `| a | b |\n|---|---|\n${lines(1_000, (i) => `| r${i} | v${i} |`)}\n`,
  code: `\`\`\`ts\n${lines(1_000, (i) => `const v${i} = "s${i}"; // ${i}`)}\n\`\`\`\n`,
  quote: `${lines(1_000, (i) => `> quoted line ${i} goes on`)}\n`,
};

describe("streaming Markdown costs what arrives", () => {
  for (const [kind, text] of Object.entries(LONG)) {
    test(`a ${kind} of 1,000 lines in chunks of 20 characters: the lexer sees each ` +
      `character a bounded number of times`, () => {
      const { seen } = streamed(`# Long\n\n${text}\nThe end.\n`, 20);
      // Drawn again at every chunk, the whole block was lexed each time: some 1,000 times its length.
      expect(seen.lexed).toBeLessThan(text.length * 60);
    }, 60_000);
  }

  test("a long code block's lines are highlighted once (with a few lines before them), not at every line", () => {
    const { seen } = streamed(LONG.code, 20);
    expect(seen.highlights).toBeGreaterThan(100);
    expect(seen.highlighted).toBeLessThan(LONG.code.length * 40);
  }, 60_000);

  test("the rows are those of the answer drawn at once, whatever the chunks", () => {
    const answer = [
      "# Plan",
      "",
      "Use **bold**, *italic* and `code`.",
      "",
      "- first",
      "- second",
      "",
      "> quoted",
      "",
      "| N | S |",
      "|---|--:|",
      "| a | 1 |",
      "",
      "```ts",
      lines(80, (i) => `const value${i} = "text ${i}"; /* ${i} */`),
      "```",
      "",
      "~~~py",
      "x = 1",
      "```",
      "y = 2",
      "~~~",
      "",
      "The end.",
    ].join("\n");
    const whole = streamed(answer, answer.length).rows;
    expect(whole).toContain("const value79");
    for (const chunk of [1, 3, 17, 200]) expect(streamed(answer, chunk).rows).toBe(whole);
  }, 30_000);

  test("a backlog that came faster than frames could draw is drawn over the next frames, in order", async () => {
    const answer = `${LONG.list}\n${LONG.code}\n${LONG.paragraph}`;
    let raw = "";
    const { loader } = counting();
    const screen = new Screen({ write: (t: string) => (raw += t), columns: 100, rows: 40 }, true, true);
    const stream = new MarkdownStream({ screen, style: COLOUR_STYLE, loader, frameMs: 5 });
    for (let i = 0; i < answer.length; i += 500) stream.append(answer.slice(i, i + 500));
    // Each frame's work is bounded: a timer set now fires while the backlog is still being drawn.
    let between = 0;
    const ticks = setInterval(() => between++, 1);
    for (let i = 0; i < 400 && !raw.includes("Sentence 999 "); i++) await Bun.sleep(10);
    clearInterval(ticks);
    stream.finish();
    expect(between).toBeGreaterThan(5);
    const rows = renderScreen(raw, 100, 100_000).join("\n").trimEnd();
    expect(rows).toBe(streamed(answer, answer.length).rows);
  }, 30_000);

  test("after a stop, a backlog not drawn by the end is left out, and a line says how much", () => {
    let raw = "";
    const { loader } = counting();
    const screen = new Screen({ write: (t: string) => (raw += t), columns: 100, rows: 40 }, true, true);
    // A clock 100 ms on at every look: the end's time is up at once.
    let clock = 0;
    const stream = new MarkdownStream({ screen, style: COLOUR_STYLE, loader, frameMs: 16, now: () => (clock += 100) });
    stream.append(LONG.paragraph);
    stream.stop();
    stream.finish();
    expect(raw).toMatch(/\(1,001 more lines of the answer had come; not shown\)/);
    expect(raw).not.toContain("Sentence 999 ");
  });

  test("a code block left open at the end keeps its last line", () => {
    const { rows } = streamed("```ts\nconst a = 1;\nconst b = 2;", 5);
    expect(rows.split("\n")).toEqual(["```ts", "const a = 1;", "const b = 2;"]);
  });

  test(
    "chunks within a frame are drawn together at the frame, never as they come; the " + "last ones at the end",
    async () => {
      let writes = 0;
      const { loader } = counting();
      const screen = new Screen({ write: () => writes++, columns: 100, rows: 40 }, true, true);
      const stream = new MarkdownStream({ screen, style: COLOUR_STYLE, loader, frameMs: 50 });
      for (let i = 0; i < 200; i++) stream.append("word ");
      // Nothing is drawn as the chunks come, only at the frame (the keys have their turn first).
      expect(writes).toBe(0);
      await Bun.sleep(30);
      const firstFrame = writes;
      expect(firstFrame).toBeGreaterThan(0);
      for (let i = 0; i < 200; i++) stream.append("more ");
      // The next frame is 50 ms after the first.
      expect(writes).toBe(firstFrame);
      await Bun.sleep(120);
      const afterFrame = writes;
      expect(afterFrame).toBeGreaterThan(firstFrame);
      expect(afterFrame).toBeLessThanOrEqual(firstFrame + 3);
      stream.finish();
      expect(writes).toBeGreaterThan(afterFrame);
    },
  );
});
