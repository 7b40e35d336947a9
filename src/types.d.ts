// SQL files are imported as text (Bun import attribute `type: "text"`) to embed migrations in the executable.
declare module "*.sql" {
  const text: string;
  export default text;
}
// The dashboard's stylesheet and script are imported as text too, so the executable carries them.
declare module "*.css" {
  const text: string;
  export default text;
}
declare module "*.client.js" {
  const text: string;
  export default text;
}
declare module "*.svg" {
  const text: string;
  export default text;
}
// A file embedded in the executable (`with { type: "file" }`): its path, on disk or in the bundle's file system.
declare module "*.wasm" {
  const path: string;
  export default path;
}
