// The gzipped tree-sitter wasm files, imported `with { type: "file" }`: a path that works in
// `bun run` and inside the compiled binary.
declare module "*.wasm.gz" {
  const path: string;
  export default path;
}
