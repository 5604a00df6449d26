// A piece of a prompt as the user sent it (an editor's content block, neutrally): text, a link
// to a file or another resource, or embedded context (a selection, a file sent along). The
// session file keeps a prompt in these (store/sessionRecords.ts), and a steering message is shown
// in them (events.ts).
export type PromptBlock =
  | { type: "text"; text: string }
  | { type: "link"; uri: string; name: string; title?: string; mimeType?: string }
  | { type: "resource"; uri: string; text: string; mimeType?: string };
