import { describe, expect, test } from "bun:test";
import { normalizeForDeny } from "../../src/permission/commandNormalize.ts";
import { innerCommands } from "../../src/permission/commandResolve.ts";
import { parseShell, roughParts } from "../../src/permission/shellParse.ts";

const names = (line: string) =>
  parseShell(line)
    .commands.filter((command) => command.words.length > 0)
    .map((command) => command.words.join(" "));

describe("parseShell finds every simple command", () => {
  test.each([
    ["a && b; c | d $(e)", ["a", "b", "c", "d $(e)", "e"]],
    ["a || b & c", ["a", "b", "c"]],
    ["echo `whoami`", ["echo `whoami`", "whoami"]],
    ["diff <(ls a) >(tee b)", ["diff <(ls a) >(tee b)", "ls a", "tee b"]],
    ["(cd x && make)", ["cd x", "make"]],
    ["{ a; b; }", ["a", "b"]],
    ["if t; then a; else b; fi", ["t", "a", "b"]],
    ["for f in $(ls); do rm $f; done", ["ls", "rm $f"]],
    ["while read l; do echo $l; done < f", ["read l", "echo $l"]],
    ["case $x in a) one;; *) two;; esac", ["one", "two"]],
    ['echo "a && b; c | d"', ["echo a && b; c | d"]],
    ["cat <<EOF\n$(rm x)\nEOF", ["cat", "rm x"]],
    ["cat <<'EOF'\n$(rm x)\nEOF", ["cat"]],
    ['echo "$(echo "$(rm x)")"', ['echo $(echo "$(rm x)")', "echo $(rm x)", "rm x"]],
  ])("%p", (line, expected) => {
    const parsed = parseShell(line);
    expect(parsed.ok).toBe(true);
    expect(names(line)).toEqual(expected);
  });

  test("names computed at run time are marked", () => {
    expect(parseShell("ls").commands[0]?.shapes[0]?.known).toBe(true);
    expect(parseShell("'ls' -la").commands[0]?.shapes[0]?.known).toBe(true);
    for (const line of ["$CMD x", "${CMD} x", "$(which rm) x", "{rm,-rf} x", "r* x"]) {
      expect(parseShell(line).commands[0]?.shapes[0]?.known).toBe(false);
    }
  });

  test("what is known of each word: fixed, one word, and its last path segment", () => {
    const shapes = (line: string) => parseShell(line).commands[0]?.shapes ?? [];
    expect(shapes("r''m x")[0]).toMatchObject({ known: true, single: true, base: "rm" });
    expect(shapes('"$DIR/tool" x')[0]).toMatchObject({ known: false, single: true, base: "tool" });
    expect(shapes("$DIR/tool x")[0]).toMatchObject({ known: false, single: false });
    expect(shapes("$DIR/tool x")[0]?.base).toBeUndefined();
    expect(shapes("/bin/r? x")[0]).toMatchObject({
      known: false,
      why: "has glob characters, so the file it names is picked when it runs",
    });
    expect(shapes('env FOO="$x" y')[1]).toMatchObject({ known: false, single: true, head: "FOO=" });
  });

  test("where standard input comes from: a pipe, a here-string, a file, a group's redirection", () => {
    const stdin = (line: string) => parseShell(line).commands.map((command) => command.stdin?.kind ?? "-");
    expect(stdin("echo a | sh | cat")).toEqual(["-", "pipe", "pipe"]);
    expect(stdin("sh <<< 'ls'")).toEqual(["here"]);
    expect(stdin("sh < f")).toEqual(["file"]);
    expect(stdin("{ sh; } <<< 'ls'")).toEqual(["here", "here"]);
    expect(stdin("echo a | { sh; }")).toEqual(["-", "pipe"]);
    expect(parseShell("sh <<END\nrm $x\nEND").commands[0]?.stdin).toMatchObject({ kind: "here", known: false });
    expect(parseShell("sh <<'END'\nrm $x\nEND").commands[0]?.stdin).toMatchObject({
      kind: "here",
      known: true,
      text: "rm $x\n",
    });
  });

  test("redirections: files written, descriptor copies and /dev/null left out", () => {
    const [first] = parseShell("make > out.log 2>&1 < in.txt").commands;
    expect(first?.writes).toEqual(["out.log"]);
    expect(first?.redirectTargets).toEqual(["out.log", "in.txt"]);
    expect(parseShell("make 2>/dev/null >&2").commands[0]?.writes).toEqual([]);
    expect(parseShell("{ a; } >> log").commands.find((c) => c.words.length === 0)?.writes).toEqual(["log"]);
  });

  test("errors and function definitions are reported", () => {
    expect(parseShell("echo 'open").ok).toBe(false);
    expect(parseShell("a &&").ok).toBe(false);
    expect(parseShell("echo $(").ok).toBe(false);
    expect(parseShell("f() { rm x; }; f").definesFunctions).toBe(true);
  });

  test("roughParts over-splits on purpose", () => {
    expect(roughParts("echo 'a && rm -rf x'")).toEqual([
      ["echo", "a"],
      ["rm", "-rf", "x"],
    ]);
    expect(roughParts("{rm,-rf,/}")).toEqual([["rm", "-rf", "/"]]);
  });
});

describe("what a command really runs", () => {
  test.each([
    ["sudo -u root rm x", "rm x"],
    ["env -i A=1 B=2 /bin/rm x", "rm x"],
    ["A=1 exec -a name rm x", "rm x"],
    ["timeout -s KILL 10 nice -n 5 rm x", "rm x"],
    ["nohup time -p rm x", "rm x"],
    ["command rm x", "rm x"],
    ["command -v rm", "command -v rm"],
    ["xargs -I {} -n 1 rm {}", "rm {}"],
    ["sudo", "sudo"],
    ["/usr/local/bin/git push", "git push"],
  ])("%p → %p", (line, expected) => {
    expect(normalizeForDeny(line.split(" ").map((word) => word.replace(/'/g, ""))).join(" ")).toBe(
      expected.replace(/'/g, ""),
    );
  });

  test("env -S splits its string", () => {
    expect(normalizeForDeny(["env", "-S", "rm -rf", "x"])).toEqual(["rm", "-rf", "x"]);
  });

  test("inner commands of sh -c, eval, find -exec and xargs", () => {
    expect(innerCommands(["bash", "-c", "ls && rm x"]).commands).toEqual([["ls"], ["rm", "x"]]);
    expect(innerCommands(["sh", "-o", "pipefail", "-c", "rm x"]).commands).toEqual([["rm", "x"]]);
    expect(innerCommands(["eval", "rm", "x"]).commands).toEqual([["rm", "x"]]);
    expect(innerCommands(["find", ".", "-exec", "rm", "{}", ";", "-print"]).commands).toEqual([["rm", "{}"]]);
    expect(innerCommands(["xargs", "-0", "rm"]).commands).toEqual([["rm"]]);
    expect(innerCommands(["bash", "script.sh"]).commands).toEqual([]);
    expect(innerCommands(["eval", "$X"]).ok).toBe(false);
    expect(innerCommands(["sh", "-c", "echo 'open"]).ok).toBe(false);
  });
});
