// The line editor's loop for one prompt: keys into the buffer until the prompt ends, with the
// history (Up/Down in the buffer, Ctrl-R here), the menu of /commands and @files that opens as
// you type (completionMenu.ts: its own Up, Down, Enter, Tab and Esc while open), Tab's completion
// of them when it is closed, Ctrl-O's transcript view, and the text sent with its long pastes put
// back in. Keys come from TerminalInput, one at a time.
import type { HistoryEntry } from "../../store/promptHistory.ts";
import type { Key } from "../keys.ts";
import { complete, completionTarget, listLines, matching } from "./completion.ts";
import { CompletionMenu } from "./completionMenu.ts";
import type { CompletionSource } from "./completionSource.ts";
import type { PromptHistory } from "./history.ts";
import { HistorySearch } from "./historySearch.ts";
import type { PromptResult } from "./input.ts";
import type { PromptView } from "./promptView.ts";
import { showPager } from "./pager.ts";
import type { Screen } from "./screen.ts";
import type { Style } from "./style.ts";

export interface PromptEditorDeps {
  view: PromptView;
  screen: Screen;
  /** The next key; undefined when the terminal closed. */
  nextKey: () => Promise<Key | undefined>;
  history: PromptHistory;
  completion?: CompletionSource;
  /** Styles the menu's selected row. */
  mark?: (line: string) => string;
  /** Ctrl-O: the conversation so far, shown whole in the pager. */
  transcript?: { lines: () => readonly string[]; style: Style };
}

/** The prompt's outcome, and for a mode switch the draft with its pastes (to give back after it). */
export type EditOutcome = PromptResult & { entry?: HistoryEntry };

/** Two Escapes this close together on an empty prompt open the rewind list. */
const DOUBLE_ESCAPE_MS = 800;

/** The keys that change the text, after which the menu follows the word at the cursor; any other key hides it. */
const EDITS = new Set<Key["name"]>(["char", "paste", "backspace", "delete", "delete-word", "kill-line", "kill-start"]);

/** What a key does to an open menu: "handled", "submit" (Enter picked a command: send it), or "pass" (the editor's). */
async function menuKey(menu: CompletionMenu, key: Key, view: PromptView): Promise<"handled" | "submit" | "pass"> {
  const target = menu.target;
  if (!target) return "pass";
  if (key.name === "up" || key.name === "down") {
    menu.move(key.name === "up" ? -1 : 1);
    return "handled";
  }
  if (key.name === "escape") {
    menu.close();
    return "handled";
  }
  if (key.name !== "enter" && key.name !== "tab") return "pass";
  const choice = menu.selected;
  if (!choice) return "pass";
  const { buffer } = view;
  // The path typed in full: Enter sends the prompt, as it would with no menu.
  if (key.name === "enter" && target.kind === "path" && choice.value === target.word) {
    menu.hide();
    return "pass";
  }
  if (key.name === "enter" && target.kind === "command") {
    buffer.replace(target.start, buffer.cursor, choice.value);
    menu.hide();
    return "submit";
  }
  // Tab first completes as far as the names that start with the word agree (as a shell does).
  const starting = matching(target, menu.items);
  const shared = key.name === "tab" && starting.length > 1 ? complete(target, starting).insert : undefined;
  buffer.replace(target.start, buffer.cursor, shared ?? complete(target, [choice]).insert ?? choice.value);
  // A folder stays open in the menu, to go on inside it.
  if (shared !== undefined || choice.folder) await menu.update(buffer.text, buffer.cursor);
  else menu.hide();
  return "handled";
}

export async function editPrompt(deps: PromptEditorDeps): Promise<EditOutcome> {
  const { view, screen } = deps;
  const { buffer } = view;
  const source = deps.completion;
  const menu = source?.menu ? new CompletionMenu({ ...source, menu: source.menu }, deps.mark) : undefined;
  let escapedAt: number | undefined;
  for (;;) {
    const key = await deps.nextKey();
    if (!key) {
      view.commit();
      return { kind: "eof" };
    }
    const step = menu?.open ? await menuKey(menu, key, view) : "pass";
    if (step === "handled") {
      view.below = menu?.lines(screen.columns) ?? [];
      view.draw();
      continue;
    }
    if (step === "submit") {
      view.below = [];
      view.commit();
      deps.history.add(buffer.entry);
      return { kind: "text", text: buffer.expanded };
    }
    if (key.name === "escape" && buffer.text === "") {
      if (escapedAt !== undefined && performance.now() - escapedAt <= DOUBLE_ESCAPE_MS) {
        view.commit();
        return { kind: "rewind" };
      }
      escapedAt = performance.now();
      continue;
    }
    escapedAt = undefined;
    // What Tab listed stays until the next key.
    const listed = view.below.length > 0;
    view.below = [];
    if (key.name === "history-search") {
      if (!(await searchHistory(deps))) {
        view.commit();
        return { kind: "eof" };
      }
      continue;
    }
    if (key.name === "transcript" && deps.transcript) {
      const open = await showPager(deps.transcript.lines(), {
        screen,
        style: deps.transcript.style,
        nextKey: deps.nextKey,
        title: "Transcript",
      });
      if (!open) {
        view.commit();
        return { kind: "eof" };
      }
      view.draw();
      continue;
    }
    if (key.name === "tab" && deps.completion) {
      const target = completionTarget(buffer.text, buffer.cursor);
      if (target) {
        await tabComplete(deps, deps.completion, target);
        continue;
      }
    }
    const result = buffer.apply(key);
    if (menu) {
      if (EDITS.has(key.name)) await menu.update(buffer.text, buffer.cursor);
      else menu.hide();
      if (menu.open) view.below = menu.lines(screen.columns);
    }
    switch (result) {
      case "submit": {
        view.commit();
        deps.history.add(buffer.entry);
        return { kind: "text", text: buffer.expanded };
      }
      case "interrupt":
        view.commit("^C\r\n");
        return { kind: "interrupt" };
      case "eof":
        view.commit();
        return { kind: "eof" };
      case "toggle-mode":
        view.erase();
        return { kind: "toggle-mode", draft: buffer.text, entry: buffer.entry };
      case "clear-screen":
        screen.raw("\x1b[2J\x1b[H");
        view.redraw();
        break;
      case "changed":
        view.draw();
        break;
      case "none":
        if (listed || view.below.length > 0) view.draw();
        break;
    }
  }
}

/** Ctrl-R until a match is taken or the search is left; false when the terminal closed. */
async function searchHistory(deps: PromptEditorDeps): Promise<boolean> {
  const { view } = deps;
  const search = new HistorySearch(deps.history.entries);
  const draw = () => view.draw(false, { label: search.label, text: search.match?.text ?? "" });
  draw();
  for (;;) {
    const key = await deps.nextKey();
    if (!key) return false;
    const step = search.apply(key);
    if (step.kind === "searching") {
      draw();
      continue;
    }
    if (step.kind === "accept" && step.entry) {
      view.buffer.load(step.entry);
      if (step.then) view.buffer.apply(step.then);
    }
    view.draw();
    return true;
  }
}

async function tabComplete(
  deps: PromptEditorDeps,
  source: CompletionSource,
  target: NonNullable<ReturnType<typeof completionTarget>>,
): Promise<void> {
  const { view, screen } = deps;
  const matches = matching(target, await source.candidates(target));
  const result = complete(target, matches);
  if (result.insert !== undefined) view.buffer.replace(target.start, view.buffer.cursor, result.insert);
  const sign = target.kind === "command" ? "/" : "@";
  if (matches.length === 0)
    view.below = [`  (no ${target.kind === "command" ? "command" : "file"} starts with ${sign}${target.word})`];
  else if (result.list.length > 0) view.below = listLines(result.list, sign, screen.columns);
  const note = source.note?.(target);
  if (note && view.below.length > 0)
    view.below.push(note.length < screen.columns ? note : `${note.slice(0, screen.columns - 2)}…`);
  view.draw();
}
