// Red team (issue 15.4's ~/ paths): a call's title is what the user reads first in a question. A
// `~/` path whose rest climbs out of the home (`~/../x`) must not be titled as if it were a project
// file: the title has to name the file the permission request, the location and the run use.
import { describe, expect, test } from "bun:test";
import { mkdirSync, realpathSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { planContext, session, tempRoot, writeFiles } from "../support/toolFixtures.ts";

describe("a ~/ path that climbs out of the home", () => {
  test(
    "read_file and write_file title the file they target, never a project path it " +
      "is not (control: a plain ~/ path keeps the model's spelling)",
    () => {
      using top = tempRoot();
      const base = realpathSync(top.path);
      const home = join(base, "home", "u");
      const root = join(home, "proj");
      mkdirSync(root, { recursive: true });
      writeFiles(base, { "home/src/app.js": "elsewhere\n", "home/u/notes.txt": "mine\n" });
      const s = session(root, { home });
      const ctx = planContext(root, home);

      // `~/../src/app.js` is <home>/../src/app.js: resolved against the root it would read "src/app.js".
      const read = s.tool("read_file").plan({ path: "~/../src/app.js" }, ctx);
      const target = join(dirname(home), "src/app.js");
      expect(read.permission.target).toMatchObject({ path: target });
      expect(read.info.title).not.toBe("Read src/app.js");
      expect(read.info.title).toBe(`Read ${target}`);

      const write = s.tool("write_file").plan({ path: `~/../${basename(home)}/proj-looking.txt`, content: "x\n" }, ctx);
      expect(write.permission.target).toMatchObject({ path: join(home, "proj-looking.txt") });
      expect(write.info.title).toBe("Write ~/proj-looking.txt");

      // Control: a plain ~/ path keeps its spelling.
      expect(s.tool("read_file").plan({ path: "~/notes.txt" }, ctx).info.title).toBe("Read ~/notes.txt");
    },
  );
});
