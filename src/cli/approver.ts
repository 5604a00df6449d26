// What both front ends say about a permission question: the warning put first when the request
// holds hidden characters. The terminal prints it (cli/chat/questionText.ts), ACP sends it in
// the question's content (acp/question.ts). Shared so a user reads the same warning everywhere;
// the architecture test lets src/acp import this file and nothing else of src/cli.

export const HIDDEN_WARNING =
  "Warning: this request contains hidden or control characters (shown as ⟨U+…⟩). It may not do what it appears to do.";
