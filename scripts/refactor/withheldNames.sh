#!/bin/sh
# Issue 15 item 13: "hidden" keeps one meaning (invisible characters); paths the file tools never
# show are "withheld". Run from the repository root; then `npx tsc --noEmit -p tsconfig.json`.
set -e
files=$(grep -rlE '\b(hiddenPredicate|HiddenPredicate|HiddenOptions|hiddenFromCommands|ruleHidden)\b' src test bench scripts --include=*.ts || true)
[ -n "$files" ] && perl -pi -e 's/\bhiddenPredicate\b/withheldPredicate/g; s/\bHiddenPredicate\b/WithheldPredicate/g; s/\bHiddenOptions\b/WithheldOptions/g; s/\bhiddenFromCommands\b/withheldFromCommands/g; s/\bruleHidden\b/ruleWithheld/g' $files
# The file tools' own predicate: every `hidden` identifier of src/tools (not the HTML attribute).
perl -pi -e 's/\bhidden\b/withheld/g unless m{^\s*(//|\*|/\*)}' $(grep -rlw hidden src/tools --include=*.ts | grep -v htmlMarkdown.ts)
# Where it is built and handed on.
perl -pi -e 's/\bconst hidden = ruleWithheld/const withheld = ruleWithheld/; s/\.\.\.\(hidden && \{ hidden \}\)/...(withheld \&\& { withheld })/' src/compose/prepare.ts
perl -pi -e 's/^(\s*)hidden: withheldPredicate\(/$1withheld: withheldPredicate(/' src/cli/chat/completionSource.ts
# Tests and the bench that hand the file tools a predicate.
perl -pi -e 's/\{ hidden: \(path\) =>/{ withheld: (path) =>/' test/tools/codeIndex/findDefinition.test.ts test/tools/glob.test.ts test/tools/grep.test.ts
perl -pi -e 's/\bhidden: withheldPredicate\(/withheld: withheldPredicate(/' bench/loop.ts test/tools/codeIndex/findDefinition.test.ts
