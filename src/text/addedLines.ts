// The lines a file change brings in: the lines of the new text that the old text does not have
// anywhere. It tells whether a change adds hidden characters (a file that already held some, an
// emoji sequence with a zero-width joiner, is not flagged again at every edit), with no diff.
export function addedLines(oldText: string | null, newText: string): string[] {
  const old = new Set(oldText === null ? [] : oldText.split(/\r?\n/));
  return newText.split(/\r?\n/).filter((line) => !old.has(line));
}
