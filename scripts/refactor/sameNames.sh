#!/bin/sh
# Issue 15 item 14: the cheap renames of same-name pairs. Run from the repository root, after
# NOTES-docs items 9 (cli/chat/questionText.ts) landed; then `npx tsc --noEmit -p tsconfig.json`.
set -e
# runtime/session.ts (the Runtime's recording into its session file) vs acp/session.ts (an editor's session).
git mv src/runtime/session.ts src/runtime/sessionRecording.ts
perl -pi -e 's{(["/])session\.ts"}{$1sessionRecording.ts"}g' src/runtime/turn.ts src/runtime/runtime.ts
others=$(grep -rl 'runtime/session\.ts"' src test || true)
[ -n "$others" ] && perl -pi -e 's{/runtime/session\.ts"}{/runtime/sessionRecording.ts"}g' $others
# previewText: the terminal's question preview (cli/chat/questionText.ts) vs extensions/clean.ts's.
perl -pi -e 's/\bpreviewText\b/questionPreview/g' src/cli/chat/questionText.ts src/cli/chat/approver.ts src/cli/chat/diffView.ts test/cli/approver.test.ts
# describeFailure: model/retry.ts's (one line for a failed attempt) vs cli/errors.ts's (how a front end prints an error).
files=$(grep -rlw describeFailure src/model test/model || true)
[ -n "$files" ] && perl -pi -e 's/\bdescribeFailure\b/attemptFailureText/g' $files
