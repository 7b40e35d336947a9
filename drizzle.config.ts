import { defineConfig } from "drizzle-kit";

// drizzle-kit only reads the schema and writes SQL migrations; the app applies them itself (store/migrate.ts).
export default defineConfig({
  dialect: "sqlite",
  schema: "./src/store/schema.ts",
  out: "./src/store/migrations",
});
