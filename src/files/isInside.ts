// The one containment test on paths: the sandbox's mounts, the permission engine's home and
// root checks and the home's own files all ask it, so they cannot disagree at an edge ("/").

/** `path` is `dir` or lies below it (both absolute and normalized). */
export function isInside(path: string, dir: string): boolean {
  if (dir === "/") return path.startsWith("/");
  return path === dir || path.startsWith(`${dir}/`);
}
