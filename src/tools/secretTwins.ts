// A file that is a secret under another name (files/secretIdentities.ts): the permission engine
// refuses such a path before a tool runs; here the file tools check the descriptor they read as
// well (the path could have been given another file since), and the searches skip such files.
import { statSync } from "node:fs";
import type { FileIdentity } from "../files/pathStamp.ts";
import type { SecretIdentities } from "../files/secretIdentities.ts";
import { shownSecret } from "../files/secrets.ts";

/** The secret on the list that the file read (its fstat) is, or undefined. */
export async function secretTwinOf(identities: SecretIdentities, file: FileIdentity): Promise<string | undefined> {
  return (await identities.current()).secretOf(file.dev, file.ino);
}

/** The secret on the list that the file at `path` is, or undefined (also when nothing is there). */
export async function secretTwinAt(identities: SecretIdentities, path: string): Promise<string | undefined> {
  try {
    return await secretTwinOf(identities, statSync(path));
  } catch {
    return undefined;
  }
}

/** The refusal of a read of a file that is `secretPath` under another name. */
export function twinRefusal(display: string, secretPath: string, home: string | undefined): string {
  const secret = home === undefined ? secretPath : shownSecret(secretPath, home);
  return (
    `${display} is the same file as ${secret} (another name for it: a link, a hard ` +
    `link or a mount), which may hold secrets, so Garuda does not read it. Work ` +
    `without its contents; if the task truly needs it, ask the user to add an allow ` +
    `rule that names ${secret}, and use that path.`
  );
}
