// Loads the Markdown libraries once, at the first answer of a chat (never at start-up): the
// chat owns one loader and awaits it before its first turn, so rendering is synchronous after.
import type { MarkdownLibraries } from "./libraries.ts";

export class MarkdownLoader {
  #libraries: MarkdownLibraries | undefined;
  #loading: Promise<MarkdownLibraries | undefined> | undefined;

  /** The libraries once loaded; undefined before (or when they could not be loaded). */
  get libraries(): MarkdownLibraries | undefined {
    return this.#libraries;
  }

  /** Loads them (once); a failure leaves the answer shown as plain text, never stops the chat. */
  load(): Promise<MarkdownLibraries | undefined> {
    this.#loading ??= import("./libraries.ts").then(
      (module) => {
        this.#libraries = module.createLibraries();
        return this.#libraries;
      },
      () => undefined,
    );
    return this.#loading;
  }
}
