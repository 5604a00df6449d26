// --continue and --resume [id]: which session file the chat picks up, and what it shows of the
// conversation so far.
import { ConfigError } from "../../errors/configError.ts";
import { oneLine, safeText, visible } from "../../text/visible.ts";
import type { ChatInput } from "./input.ts";
import type { Screen } from "./screen.ts";
import { findSession, listSessions, type SessionDetails, sessionDetails, turnSteps, when } from "./sessions.ts";
import type { Style } from "./style.ts";
import { plural } from "./text.ts";

export type ResumeRequest = { latest: true } | { pick: true } | { id: string };

const LISTED = 10;
const SHOWN_TURNS = 2;
const ANSWER_LINES = 12;

/** The session to resume, or undefined to start a new one (a line says why). */
export async function chooseSession(
  request: ResumeRequest,
  ui: { sessionsDir: string; root: string; input: ChatInput; screen: Screen; style: Style },
): Promise<SessionDetails | undefined> {
  const { screen, style, input } = ui;
  const sessions = listSessions(ui.sessionsDir, ui.root);
  if (sessions.length === 0) {
    screen.line(style.dim("No earlier conversation in this folder; starting a new one."));
    return undefined;
  }
  if ("latest" in request) return sessionDetails(sessions[0] as (typeof sessions)[number]);
  if ("id" in request) {
    const found = findSession(sessions, request.id);
    if (found === "ambiguous")
      throw new ConfigError(
        undefined,
        `More than one conversation of this folder starts with "${request.id}". Give ` +
          `more of its id (garuda --resume lists them).`,
      );
    if (!found)
      throw new ConfigError(
        undefined,
        `No conversation "${request.id}" in this folder. \`garuda --resume\` lists them.`,
      );
    return sessionDetails(found);
  }
  const shown = sessions.slice(0, LISTED).map(sessionDetails);
  screen.line("Conversations in this folder, most recent first:");
  shown.forEach((session, index) => {
    const first = session.turns[0]?.prompt ?? "";
    screen.line(
      `  ${style.cyan(String(index + 1).padStart(2))}. ${when(session.modified)}  ` +
        `${style.dim(oneLine(session.id))}  ${plural(session.turns.length, "turn")}  ` +
        `${oneLine(first, 60)}`,
    );
  });
  for (;;) {
    const answer = await input.readLine(`Resume which (1–${shown.length}, Enter for 1, n for a new one)? `);
    if (answer === undefined) return undefined;
    const text = answer.trim().toLowerCase();
    if (text === "n" || text === "new") return undefined;
    const index = text === "" ? 0 : Number(text) - 1;
    const picked = Number.isInteger(index) ? shown[index] : undefined;
    if (picked) return picked;
    screen.line(`Type a number from 1 to ${shown.length}.`);
  }
}

/** The last turns of the resumed conversation: each prompt and the start of its answer. */
export function showResumed(session: SessionDetails, ui: { screen: Screen; style: Style }): void {
  const { screen, style } = ui;
  if (session.damaged)
    screen.line(
      style.yellow(`Garuda: the session file has a damaged line (${visible(session.damaged)}); it was skipped.`),
    );
  const turns = session.turns.slice(-SHOWN_TURNS);
  if (session.turns.length > turns.length)
    screen.line(style.dim(`… ${plural(session.turns.length - turns.length, "earlier turn")}`));
  for (const turn of turns) {
    screen.line(style.dim(`› ${visible(turn.prompt).split("\n").join("\n  ")}`));
    // Each step on lines of its own: the texts before and after a call are not run together.
    const lines = turnSteps(turn).flatMap((step) =>
      step.startsWith("● ") ? [style.dim(visible(step))] : safeText(step).split("\n"),
    );
    const cut = lines.length > ANSWER_LINES ? [...lines.slice(0, ANSWER_LINES), "…"] : lines;
    if (cut.join("") !== "") screen.line(cut.join("\n"));
  }
  screen.line(style.dim(`Resumed conversation ${oneLine(session.id)} (${plural(session.turns.length, "turn")}).`));
}
