/** Named host sets for network.allow (project settings and team policy), so nobody lists every registry mirror. */
export const NETWORK_PRESETS: Readonly<Record<string, readonly string[]>> = {
  npm: ["registry.npmjs.org", "registry.yarnpkg.com", "*.npmjs.org"],
  pypi: ["pypi.org", "files.pythonhosted.org"],
  github: ["github.com", "*.github.com", "*.githubusercontent.com", "codeload.github.com"],
  crates: ["crates.io", "index.crates.io", "static.crates.io"],
  go: ["proxy.golang.org", "sum.golang.org", "storage.googleapis.com"],
  rubygems: ["rubygems.org", "index.rubygems.org"],
  maven: ["repo.maven.apache.org", "repo1.maven.org"],
};
