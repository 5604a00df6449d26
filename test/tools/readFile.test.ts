import { describe, expect, test } from "bun:test";
import { mkdirSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { planContext, session, tempRoot, writeFiles } from "../support/toolFixtures.ts";

const lines = (n: number, make = (i: number) => `line ${i}`) =>
  `${Array.from({ length: n }, (_, i) => make(i + 1)).join("\n")}\n`;

describe("read_file", () => {
  test("numbers lines like cat -n and records the read", async () => {
    using root = tempRoot();
    writeFiles(root.path, { "src/a.ts": "const a = 1;\n\tindented\n" });
    const s = session(root.path);
    const result = await s.run("read_file", { path: "src/a.ts" });
    expect(result.isError).toBeUndefined();
    expect(result.output).toBe("     1\tconst a = 1;\n     2\t\tindented");
    expect(result.summary).toBe("Read 2 lines");
    expect(s.deps.reads.get(join(root.path, "src/a.ts"))?.size).toBe(23);
  });

  test("reads a range from offset and says how to read on", async () => {
    using root = tempRoot();
    writeFiles(root.path, { "big.txt": lines(30) });
    const s = session(root.path);
    const result = await s.run("read_file", { path: "big.txt", offset: 11, limit: 5 });
    expect(result.output.split("\n").slice(0, 5)).toEqual([
      "    11\tline 11",
      "    12\tline 12",
      "    13\tline 13",
      "    14\tline 14",
      "    15\tline 15",
    ]);
    expect(result.output).toContain("[Showing lines 11–15 of 30. Read on with offset 16.]");
    expect(result.summary).toBe("Read lines 11–15 of 30");
  });

  test("reads at most 2000 lines by default and refuses a larger limit", async () => {
    using root = tempRoot();
    writeFiles(root.path, { "long.txt": lines(2500) });
    const s = session(root.path);
    const result = await s.run("read_file", { path: "long.txt" });
    expect(result.output).toContain("  2000\tline 2000\n[Showing lines 1–2000 of 2500. Read on with offset 2001.]");
    expect(result.output).not.toContain("line 2001");
    expect(() => s.tool("read_file").input.parse({ path: "long.txt", limit: 2001 })).toThrow();
    expect(() => s.tool("read_file").input.parse({ path: "long.txt", offset: 0 })).toThrow();
  });

  test("cuts lines at 2,000 characters and says which", async () => {
    using root = tempRoot();
    writeFiles(root.path, { "wide.txt": `short\n${"x".repeat(5000)}\n` });
    const result = await session(root.path).run("read_file", { path: "wide.txt" });
    expect(result.output).toContain(`     2\t${"x".repeat(2000)}… [line cut: 5,000 characters]`);
    expect(result.output).toContain("[Line 2 was cut at 2000 characters; grep finds text anywhere in a line.]");
  });

  test("stops at 50,000 characters with the offset to continue from", async () => {
    using root = tempRoot();
    writeFiles(root.path, { "dense.txt": lines(1000, (i) => `${i}:${"y".repeat(190)}`) });
    const result = await session(root.path).run("read_file", { path: "dense.txt" });
    expect(result.output.length).toBeLessThan(50_300);
    const last = Number(
      result.output.match(
        /Showing lines 1–(\d+) of 1000 \(the output limit is 50,000 characters\)\. Read on with offset (\d+)\./,
      )?.[2],
    );
    expect(last).toBeGreaterThan(200);
    expect(last).toBeLessThan(300);
    const next = await session(root.path).run("read_file", { path: "dense.txt", offset: last });
    expect(next.output.startsWith(`${String(last).padStart(6)}\t${last}:`)).toBe(true);
  });

  test("refuses files over 10 MB with advice", async () => {
    using root = tempRoot();
    writeFileSync(join(root.path, "huge.log"), "");
    truncateSync(join(root.path, "huge.log"), 11 * 1024 * 1024);
    const result = await session(root.path).run("read_file", { path: "huge.log" });
    expect(result.isError).toBe(true);
    expect(result.output).toBe(
      "huge.log is 11.0 MB; read_file reads files up to 10.0 MB. Use grep with path " +
        '"huge.log" to find the lines you need, or a bash command such as `sed -n ' +
        "'1000,1200p'` or `tail -n 100` to read a part.",
    );
  });

  test("describes binary files instead of dumping them and does not record them", async () => {
    using root = tempRoot();
    writeFiles(root.path, {
      "logo.png": new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]),
      "data.bin": new Uint8Array([1, 2, 3, 0, 5, 6]),
      "latin.txt": new Uint8Array(Array.from({ length: 100 }, (_, i) => (i % 2 ? 0xe9 : 0x41))),
    });
    const s = session(root.path);
    const png = await s.run("read_file", { path: "logo.png" });
    expect(png.output).toBe(
      "logo.png is a PNG image (12 bytes); its content is not shown as text. Use a " +
        "bash command that understands the format if you need to inspect it.",
    );
    expect((await s.run("read_file", { path: "data.bin" })).output).toStartWith(
      "data.bin is a binary file (it contains NUL bytes) (6 bytes)",
    );
    expect((await s.run("read_file", { path: "latin.txt" })).output).toStartWith(
      "latin.txt is a binary file, or text in an encoding other than UTF-8",
    );
    expect(s.deps.reads.get(join(root.path, "logo.png"))).toBeUndefined();
  });

  test("shows text with a few invalid UTF-8 bytes, with a note", async () => {
    using root = tempRoot();
    const text = new TextEncoder().encode(`${"plain text ".repeat(50)}\n`);
    const bytes = new Uint8Array([...text.slice(0, 20), 0xff, ...text.slice(20)]);
    writeFiles(root.path, { "mostly.txt": bytes });
    const result = await session(root.path).run("read_file", { path: "mostly.txt" });
    expect(result.output).toContain("�");
    expect(result.output).toContain("[1 byte in this file is not valid UTF-8 and shows as �.]");
  });

  test("a folder gets a listing and a hint to use glob; hidden entries are left out", async () => {
    using root = tempRoot();
    writeFiles(root.path, { "src/a.ts": "", "src/.env": "KEY=1", "src/lib/b.ts": "" });
    const result = await session(root.path).run("read_file", { path: "src" });
    expect(result.isError).toBe(true);
    expect(result.output).toBe(
      "src is a folder, not a file. Read one of its files, or use glob to find files " +
        'in it (e.g. pattern "**/*" with path "src").\nIt contains:\na.ts\nlib/',
    );
  });

  test("a missing file names similar files", async () => {
    using root = tempRoot();
    writeFiles(root.path, { "src/config.ts": "", "src/Readme.md": "" });
    const s = session(root.path);
    expect((await s.run("read_file", { path: "src/config.js" })).output).toBe(
      "File not found: src/config.js. Files with similar names there: config.ts.",
    );
    expect((await s.run("read_file", { path: "src/README.md" })).output).toBe(
      "File not found: src/README.md. Files with similar names there: Readme.md.",
    );
    expect((await s.run("read_file", { path: "nowhere/x.ts" })).output).toBe(
      "File not found: nowhere/x.ts. Use glob to find the file.",
    );
  });

  test("an offset past the end and an empty file say so", async () => {
    using root = tempRoot();
    writeFiles(root.path, { "three.txt": "a\nb\nc\n", "empty.txt": "" });
    const s = session(root.path);
    const past = await s.run("read_file", { path: "three.txt", offset: 9 });
    expect(past.isError).toBe(true);
    expect(past.output).toBe("three.txt has 3 lines; offset 9 is past the end. Use an offset from 1 to 3.");
    expect((await s.run("read_file", { path: "empty.txt" })).output).toBe("empty.txt is empty (0 lines).");
  });

  test("CRLF line ends and a byte-order mark do not show", async () => {
    using root = tempRoot();
    writeFiles(root.path, { "win.txt": "\uFEFFfirst\r\nsecond\r\n" });
    expect((await session(root.path).run("read_file", { path: "win.txt" })).output).toBe(
      "     1\tfirst\n     2\tsecond",
    );
  });

  test("plan(): title, kind, absolute location and a read target", () => {
    using root = tempRoot();
    mkdirSync(join(root.path, "src"));
    const tool = session(root.path).tool("read_file");
    expect(tool.readOnly).toBe(true);
    expect(tool.plan({ path: "src/a.ts", offset: 40 }, planContext(root.path)).info).toEqual({
      title: "Read src/a.ts",
      kind: "read",
      locations: [{ path: join(root.path, "src/a.ts"), line: 40 }],
    });
    expect(tool.plan({ path: "/etc/hosts" }, planContext(root.path)).info.title).toBe("Read /etc/hosts");
    const request = tool.plan(
      { path: "src/a.ts" },
      { root: root.path, home: "/home/u", sandbox: null, executor: {} as never },
    ).permission;
    expect(request).toEqual({
      tool: "read_file",
      readOnly: true,
      target: { kind: "path", path: join(root.path, "src/a.ts"), access: "read" },
      preview: join(root.path, "src/a.ts"),
    });
  });

  test(
    "a ~/ path is resolved once, in the home: the title keeps the model's spelling; " +
      "the location, the target and the read are the home's file",
    async () => {
      using root = tempRoot();
      using home = tempRoot();
      writeFiles(home.path, { "notes.txt": "from home\n" });
      writeFiles(root.path, { "~/notes.txt": "a folder named ~ in the project\n" });
      const s = session(root.path, { home: home.path });
      const plan = s.tool("read_file").plan({ path: "~/notes.txt" }, planContext(root.path, home.path));
      expect(plan.info).toEqual({
        title: "Read ~/notes.txt",
        kind: "read",
        locations: [{ path: join(home.path, "notes.txt") }],
      });
      expect(plan.permission.target).toEqual({ kind: "path", path: join(home.path, "notes.txt"), access: "read" });
      expect((await s.tool("read_file").run(plan, s.ctx)).output).toBe("     1\tfrom home");
      // Control: without the ~ it is the project's file.
      expect((await s.run("read_file", { path: "./~/notes.txt" })).output).toBe(
        "     1\ta folder named ~ in the project",
      );
    },
  );
});
