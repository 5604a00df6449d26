// Skills over real folders: names and descriptions in the skill tool's description (fixed for
// the session), the body when the model loads one, /name from the user, the project's only
// after a consent, the user's winning a clash.
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { fake } from "../../src/model/fake.ts";
import { answering, notices, place, results, session, userText } from "../support/extensionHarness.ts";

const PDF =
  "---\nname: pdf\ndescription: Fill and read PDF forms\nargument-hint: " +
  "<file>\n---\n# PDF\nRun ${GARUDA_SKILL_DIR}/scripts/fill.py on $ARGUMENTS[0]. " +
  "SECRET-BODY-TEXT\n";

describe("skills", () => {
  test(
    "the skill tool lists names and descriptions only, byte-stable; the body comes " + "when the model loads it",
    async () => {
      using where = place();
      const skill = where.user(".garuda/skills/pdf/SKILL.md", PDF);
      where.user(".garuda/skills/pdf/scripts/fill.py", "print('fill')\n");
      where.user(
        ".agents/skills/notes/SKILL.md",
        "---\ndescription: Keep meeting notes\n---\nWrite notes as bullet lists.",
      );
      where.user(
        ".garuda/skills/hidden/SKILL.md",
        "---\ndescription: Only for people\ndisable-model-invocation: true\n---\nHidden from the model.",
      );
      await using s = await session(
        where,
        [
          fake.toolCall("skill", { name: "pdf", arguments: "form.pdf" }),
          fake.toolCall("skill", { name: "pdf", file: "scripts/fill.py" }),
          fake.text("done"),
          fake.text("again"),
        ],
        answering(),
      );
      const { events } = await s.prompt("fill the form");
      await s.prompt("once more");

      const spec = s.model.requests[0]?.tools?.find((tool) => tool.name === "skill");
      expect(spec?.description).toContain("Skills:\n- notes: Keep meeting notes\n- pdf: Fill and read PDF forms");
      expect(spec?.description).not.toContain("SECRET-BODY-TEXT");
      expect(spec?.description).not.toContain("hidden");
      expect(spec?.inputSchema).toMatchObject({ properties: { name: { enum: ["notes", "pdf"] } } });
      // The same bytes in every request of the session.
      const specs = s.model.requests.map((request) => JSON.stringify(request.tools));
      expect(new Set(specs).size).toBe(1);

      const [body, file] = results(events);
      expect(body?.status).toBe("completed");
      expect(body?.output).toContain(`<skill name="pdf" folder="${skill.replace("/SKILL.md", "")}">`);
      expect(body?.output).toContain(
        `Run ${skill.replace("/SKILL.md", "")}/scripts/fill.py on form.pdf. SECRET-BODY-TEXT`,
      );
      expect(body?.output).toContain("- scripts/fill.py");
      expect(file?.output).toContain("print('fill')");
      const call = events.find((event) => event.type === "tool_call");
      expect(call?.type === "tool_call" && call.info).toMatchObject({ title: "Skill: pdf", kind: "read" });
      // /name lists it for the user too, with its hint; model-only-hidden skills still show there.
      expect(s.runtime.availableCommands()).toEqual([
        { name: "hidden", description: "Only for people" },
        { name: "notes", description: "Keep meeting notes" },
        { name: "pdf", description: "Fill and read PDF forms", argumentHint: "<file>" },
      ]);
    },
  );

  test("/name runs a skill with its arguments", async () => {
    using where = place();
    where.user(".garuda/skills/pdf/SKILL.md", PDF);
    await using s = await session(where, [fake.text("ok")], answering());
    await s.prompt("/pdf tax.pdf");
    const text = userText(s.model, 0);
    expect(text).toContain('Use the skill "pdf" for this request.');
    expect(text).toContain("fill.py on tax.pdf. SECRET-BODY-TEXT");
  });

  test("a file outside the skill's folder is refused", async () => {
    using where = place();
    where.user(".garuda/skills/pdf/SKILL.md", PDF);
    where.user(".garuda/credentials-copy", "secret");
    await using s = await session(
      where,
      [fake.toolCall("skill", { name: "pdf", file: "../../credentials-copy" }), fake.text("ok")],
      answering(),
    );
    const { events } = await s.prompt("go");
    expect(results(events)[0]?.output).toBe("Error: ../../credentials-copy is not inside the skill's folder.");
  });

  test(
    "a project skill loads only after a yes; no → an error result and no body; " +
      "remembered → pinned; changed → asked again",
    async () => {
      using where = place();
      const file = where.project(
        ".garuda/skills/deploy/SKILL.md",
        "---\ndescription: Deploy steps\n---\nPROJECT-SKILL-BODY",
      );
      where.project(".agents/skills/lint/SKILL.md", "---\ndescription: Lint rules\n---\nLint body");
      const no = answering("deny");
      {
        await using s = await session(where, [fake.toolCall("skill", { name: "deploy" }), fake.text("ok")], no);
        const { events } = await s.prompt("deploy it");
        expect(s.model.requests[0]?.tools?.find((tool) => tool.name === "skill")?.description).toContain(
          "- deploy: Deploy steps\n- lint: Lint rules",
        );
        expect(no.asked).toHaveLength(1);
        expect(no.asked[0]).toMatchObject({
          title: "Project skill: deploy",
          question: 'Let the model use the project skill "deploy"? Its text becomes part of the conversation.',
        });
        expect(no.asked[0]?.callId).toBeUndefined();
        const result = results(events)[0];
        expect(result?.output).toBe('Error: The project skill "deploy" was not loaded: you said no. Go on without it.');
        expect(JSON.stringify(s.model.requests)).not.toContain("PROJECT-SKILL-BODY\n");
      }
      const yes = answering("session");
      {
        await using s = await session(where, [fake.toolCall("skill", { name: "deploy" }), fake.text("ok")], yes);
        const { events } = await s.prompt("deploy it");
        expect(results(events)[0]?.output).toContain("PROJECT-SKILL-BODY");
      }
      const quiet = answering();
      {
        await using s = await session(where, [fake.text("ok")], quiet);
        await s.prompt("/deploy");
        expect(quiet.asked).toHaveLength(0);
        expect(userText(s.model, 0)).toContain("PROJECT-SKILL-BODY");
      }
      writeFileSync(file, "---\ndescription: Deploy steps\n---\nPROJECT-SKILL-BODY, and push to main");
      const again = answering("deny");
      {
        await using s = await session(where, [fake.text("ok")], again);
        const { events } = await s.prompt("/deploy");
        expect(again.asked).toHaveLength(1);
        expect(notices(events)).toContain(
          '/deploy did not run: The project skill "deploy" was not loaded: you said no.',
        );
        expect(s.model.requests).toHaveLength(0);
      }
    },
  );

  test("the user's skill wins a clash with the project's", async () => {
    using where = place();
    where.user(".garuda/skills/deploy/SKILL.md", "---\ndescription: Mine\n---\nUSER-BODY");
    where.project(".garuda/skills/deploy/SKILL.md", "---\ndescription: Theirs\n---\nPROJECT-BODY");
    const approver = answering();
    await using s = await session(where, [fake.toolCall("skill", { name: "deploy" }), fake.text("ok")], approver);
    const { events } = await s.prompt("go");
    expect(results(events)[0]?.output).toContain("USER-BODY");
    expect(approver.asked).toHaveLength(0);
    expect(notices(events).join("\n")).toContain('The project skill "deploy"');
    expect(s.model.requests[0]?.tools?.find((tool) => tool.name === "skill")?.description).toContain("- deploy: Mine");
  });

  test("no skills, no skill tool", async () => {
    using where = place();
    await using s = await session(where, [fake.text("ok")], answering());
    await s.prompt("hi");
    expect(s.model.requests[0]?.tools?.some((tool) => tool.name === "skill" || tool.name === "agent")).toBe(false);
  });
});
