// session/new's additionalDirectories as extra roots, end to end in one process: the real
// permission engine, file tools and bubblewrap sandbox (issue 18, item 4).
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type * as acp from "@agentclientprotocol/sdk";
import { FakeModelClient, fake } from "../../src/model/fake.ts";
import { contentText, ofKind, startHarness, testProbe } from "../support/acpHarness.ts";
import { tempDir } from "../support/tempDir.ts";

const rejection = async (promise: Promise<unknown>) => {
  try {
    await promise;
  } catch (error) {
    return error as acp.RequestError;
  }
  throw new Error("expected a rejection");
};

/** The tool result text of one call. */
function resultOf(updates: readonly acp.SessionUpdate[], id: string): string {
  return contentText(
    ofKind(updates, "tool_call_update").find(
      (u) => u.toolCallId === id && (u.status === "completed" || u.status === "failed"),
    )?.content,
  );
}

describe("additionalDirectories", () => {
  test("initialize advertises them", async () => {
    await using h = startHarness();
    const init = await h.initialize();
    expect(init.agentCapabilities?.sessionCapabilities?.additionalDirectories).toEqual({});
  });

  test(
    "a file in an extra folder is read without a question, as one in the root; a " + "write there asks as in the root",
    async () => {
      using extra = tempDir("garuda-extra-");
      writeFileSync(join(extra.path, "lib.ts"), "export const shared = 1;\n");
      const model = new FakeModelClient([
        fake.toolCall("read_file", { path: join(extra.path, "lib.ts") }, { id: "toolu_read" }),
        fake.toolCall(
          "write_file",
          { path: join(extra.path, "new.ts"), content: "export {};\n" },
          { id: "toolu_write" },
        ),
        fake.text("done"),
      ]);
      await using h = startHarness({ models: [model] });
      await h.initialize();
      const { sessionId } = await h.newSession({ additionalDirectories: [extra.path] });
      await h.prompt(sessionId, "go");
      expect(resultOf(h.updatesOf(sessionId), "toolu_read")).toContain("export const shared = 1;");
      // Only the write asked, and not with "outside the project folder".
      expect(h.permissions.map((p) => p.toolCall.toolCallId)).toEqual(["toolu_write"]);
      expect(contentText(h.permissions[0]?.toolCall.content)).not.toContain("outside the project");
      expect(readFileSync(join(extra.path, "new.ts"), "utf8")).toBe("export {};\n");
      // The model is told where they are.
      expect(model.requests[0]?.system).toContain(
        "Other project folders (use absolute paths; the tools and the sandbox treat them as the project): " +
          extra.path,
      );
    },
  );

  test("negative control: without additionalDirectories the same read asks, as outside the project", async () => {
    using extra = tempDir("garuda-extra-");
    writeFileSync(join(extra.path, "lib.ts"), "x\n");
    const model = new FakeModelClient([
      fake.toolCall("read_file", { path: join(extra.path, "lib.ts") }, { id: "toolu_read" }),
      fake.text("done"),
    ]);
    await using h = startHarness({ models: [model] });
    await h.initialize();
    const { sessionId } = await h.newSession();
    await h.prompt(sessionId, "go");
    expect(h.permissions.map((p) => p.toolCall.toolCallId)).toEqual(["toolu_read"]);
  });

  test("a write through a symlink in an extra folder to outside every root is refused, as in the root", async () => {
    using extra = tempDir("garuda-extra-");
    using outside = tempDir("garuda-outside-");
    writeFileSync(join(outside.path, "target.txt"), "original\n");
    symlinkSync(join(outside.path, "target.txt"), join(extra.path, "link.txt"));
    const model = new FakeModelClient([
      fake.toolCall("write_file", { path: join(extra.path, "link.txt"), content: "changed\n" }, { id: "toolu_write" }),
      fake.text("done"),
    ]);
    await using h = startHarness({ models: [model] });
    await h.initialize();
    const { sessionId } = await h.newSession({ additionalDirectories: [extra.path] });
    await h.prompt(sessionId, "go");
    expect(resultOf(h.updatesOf(sessionId), "toolu_write")).toContain(
      "which is outside the project. Garuda does not write through it",
    );
    expect(readFileSync(join(outside.path, "target.txt"), "utf8")).toBe("original\n");
  });

  test(
    "the sandbox makes an extra folder writable, keeps its .git/hooks, .git/config " +
      "and .garuda read-only, and plan mode makes it read-only",
    async () => {
      if (!(await testProbe()).availability.available) throw new Error("the OS sandbox is needed for this test");
      using extra = tempDir("garuda-extra-");
      using outside = tempDir("garuda-outside-");
      expect(Bun.spawnSync(["git", "init", "-q", extra.path]).exitCode).toBe(0);
      mkdirSync(join(extra.path, ".garuda"));
      const script = [
        `echo ok > ${extra.path}/made.txt`,
        `echo bad > ${extra.path}/.git/hooks/pre-commit`,
        `echo bad >> ${extra.path}/.git/config`,
        `echo bad > ${extra.path}/.garuda/settings.json`,
        `echo bad > ${outside.path}/escaped.txt`,
        "true",
      ].join("; ");
      const model = new FakeModelClient([
        fake.toolCall("bash", { command: script }, { id: "toolu_bash" }),
        fake.text("done"),
        fake.toolCall("bash", { command: `echo plan > ${extra.path}/plan.txt; true` }, { id: "toolu_plan" }),
        fake.text("done"),
      ]);
      await using h = startHarness({ models: [model] });
      await h.initialize();
      const { sessionId } = await h.newSession({ additionalDirectories: [extra.path] });
      const config = readFileSync(join(extra.path, ".git/config"), "utf8");
      await h.prompt(sessionId, "go");
      expect(h.permissions).toEqual([]); // a sandboxed command runs without a question
      expect(readFileSync(join(extra.path, "made.txt"), "utf8")).toBe("ok\n");
      expect(existsSync(join(extra.path, ".git/hooks/pre-commit"))).toBe(false);
      expect(readFileSync(join(extra.path, ".git/config"), "utf8")).toBe(config);
      expect(existsSync(join(extra.path, ".garuda/settings.json"))).toBe(false);
      expect(existsSync(join(outside.path, "escaped.txt"))).toBe(false);

      await h.agent.request("session/set_mode" as never, { sessionId, modeId: "plan" } as never);
      await h.prompt(sessionId, "plan");
      expect(existsSync(join(extra.path, "plan.txt"))).toBe(false);
    },
  );

  test(
    "a sandboxed command in a session with an extra folder: a repository it plants " +
      "there is moved aside by the git guard, and ~/go/bin in an extra ~/go stays " +
      "read-only",
    async () => {
      if (!(await testProbe()).availability.available) throw new Error("the OS sandbox is needed for this test");
      using extra = tempDir("garuda-extra-");
      expect(Bun.spawnSync(["git", "init", "-q", extra.path]).exitCode).toBe(0);
      const plant = [
        `git init -q ${extra.path}/sub`,
        `git -C ${extra.path}/sub config core.fsmonitor 'touch /tmp/never'`,
        "true",
      ].join(" && ");
      const model = new FakeModelClient([
        fake.toolCall("bash", { command: plant }, { id: "toolu_plant" }),
        fake.text("done"),
      ]);
      await using h = startHarness({ models: [model] });
      mkdirSync(join(h.home, "go/bin"), { recursive: true });
      await h.initialize();
      const { sessionId } = await h.newSession({ additionalDirectories: [extra.path, join(h.home, "go")] });
      await h.prompt(sessionId, "go");
      expect(resultOf(h.updatesOf(sessionId), "toolu_plant")).toContain("Garuda moved it to .garuda/quarantine/");
      expect(existsSync(join(extra.path, "sub/.git/config"))).toBe(false);
      expect(existsSync(join(extra.path, ".garuda/quarantine"))).toBe(true);

      model.push(
        fake.toolCall(
          "bash",
          { command: `echo x > ${join(h.home, "go/bin/go")}; echo x > ${join(h.home, "go/ok")}` },
          { id: "toolu_bin" },
        ),
        fake.text("done"),
      );
      await h.prompt(sessionId, "again");
      expect(resultOf(h.updatesOf(sessionId), "toolu_bin")).toContain("Read-only file system");
      expect(existsSync(join(h.home, "go/bin/go"))).toBe(false);
      expect(readFileSync(join(h.home, "go/ok"), "utf8")).toBe("x\n");
    },
  );

  test(
    "an extra folder inside the home keeps the home's own files: write_file into " +
      "~/go/bin is refused, ~/go/src is written as in the root (negative control)",
    async () => {
      const model = new FakeModelClient([
        fake.toolCall("write_file", { path: "~/go/bin/go", content: "#!/bin/sh\n" }, { id: "toolu_bin" }),
        fake.toolCall("write_file", { path: "~/go/src/x.go", content: "package x\n" }, { id: "toolu_src" }),
        fake.text("done"),
      ]);
      await using h = startHarness({ models: [model] });
      await h.initialize();
      mkdirSync(join(h.home, "go/bin"), { recursive: true });
      mkdirSync(join(h.home, "go/src"), { recursive: true });
      const { sessionId } = await h.newSession({ additionalDirectories: [join(h.home, "go")] });
      await h.prompt(sessionId, "go");
      expect(resultOf(h.updatesOf(sessionId), "toolu_bin")).toContain("is one of the home folder's own files");
      expect(existsSync(join(h.home, "go/bin/go"))).toBe(false);
      expect(readFileSync(join(h.home, "go/src/x.go"), "utf8")).toBe("package x\n");
    },
  );

  test(
    "a folder that is not absolute, missing, a file, a system or temp folder, the " +
      "home or one of its own folders (~/.config, ~/.local, ~/bin, ~/go/bin) is a " +
      "clear error",
    async () => {
      using file = tempDir("garuda-extra-");
      writeFileSync(join(file.path, "f"), "");
      await using h = startHarness();
      await h.initialize();
      for (const own of [".config", ".local/share", "bin", "go/bin"]) mkdirSync(join(h.home, own), { recursive: true });
      const cases: Array<[string, string]> = [
        [
          "relative/dir",
          'The additional folder "relative/dir" cannot be used: it is not an absolute path. Give its absolute path.',
        ],
        [
          join(file.path, "missing"),
          `The additional folder "${join(file.path, "missing")}" cannot be used: it does not exist.`,
        ],
        [join(file.path, "f"), "it is not a folder"],
        ["/usr", 'The additional folder "/usr" cannot be used: it is a system folder'],
        ["/tmp", 'The additional folder "/tmp" cannot be used: it is the shared temp folder'],
        [h.home, "it is (or holds) your home folder"],
        ...[".config", ".local/share", "bin", "go/bin"].map((own): [string, string] => [
          join(h.home, own),
          "it is one of your home folder's own folders or inside one",
        ]),
        [join(h.home, ".garuda"), "Garuda's own folder"],
      ];
      for (const [folder, message] of cases) {
        const error = await rejection(h.newSession({ additionalDirectories: [folder] }));
        expect(error.message).toContain(message);
      }
    },
  );
});
