// SQL files are imported as text (Bun import attribute `type: "text"`) to embed migrations in the executable.
declare module "*.sql" {
  const text: string;
  export default text;
}
