import { defineConfig } from 'drizzle-kit';

// One migration history for the whole service (STYLE 5.3): every module's *.tables.ts feeds it.
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/modules/*/*.tables.ts',
  out: './migrations',
  casing: 'snake_case',
});
