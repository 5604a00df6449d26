// Which sessions of the history one editor connection may delete. session/delete names only an
// id (the protocol gives it no folder), and a session belongs to its project (load and resume
// refuse another folder's): so a connection deletes a session of a project it works in (a
// session/new, load or resume there, or a session/list for that folder), or one an unscoped
// session/list showed it (the editor's history of every project, where the user chose it).
// Anything else, such as a guessed id of another project, is refused. One per connection
// (sessions.ts), so one editor window's scope never widens another's.

/** The project folders and the listed sessions of one connection. */
export class HistoryScope {
  /** Real paths of the project folders the connection named. */
  readonly #projects = new Set<string>();
  /** Ids an unscoped session/list showed. */
  readonly #shown = new Set<string>();

  /** The connection works in `root` (a real path): session/new, load, resume, or a list for it. */
  addProject(root: string): void {
    this.#projects.add(root);
  }

  /** An unscoped session/list showed these sessions. */
  addShown(ids: Iterable<string>): void {
    for (const id of ids) this.#shown.add(id);
  }

  /** The project folders the connection named, for a refusal. */
  get projects(): string[] {
    return [...this.#projects];
  }

  /**
   * Whether session `id`, whose file is in `folder`, may be deleted; `folderOf` maps a project to its session folder.
   */
  allows(id: string, folder: string, folderOf: (root: string) => string): boolean {
    return this.#shown.has(id) || this.projects.some((root) => folderOf(root) === folder);
  }
}
