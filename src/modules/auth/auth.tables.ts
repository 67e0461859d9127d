import { bigserial, index, integer, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { users } from '../users/users.tables.js';

/**
 * Opaque refresh tokens, stored only as SHA-256 hashes. Each login starts a family; every refresh
 * rotates the token inside its family, and presenting an already-rotated token revokes the family
 * (reuse detection).
 */
export const refreshTokens = pgTable(
  'refresh_tokens',
  {
    id: bigserial({ mode: 'number' }).primaryKey(),
    userId: integer().notNull().references(() => users.id, { onDelete: 'cascade' }),
    familyId: uuid().notNull(),
    tokenHash: text().notNull(),
    createdAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    expiresAt: timestamp({ withTimezone: true, mode: 'date' }).notNull(),
    rotatedAt: timestamp({ withTimezone: true, mode: 'date' }),
    revokedAt: timestamp({ withTimezone: true, mode: 'date' }),
  },
  (t) => [uniqueIndex('refresh_tokens_hash_uq').on(t.tokenHash), index('refresh_tokens_family_idx').on(t.familyId), index('refresh_tokens_user_idx').on(t.userId)],
);

/** Single-use, expiring password-reset tokens (hash only). */
export const passwordResetTokens = pgTable(
  'password_reset_tokens',
  {
    id: bigserial({ mode: 'number' }).primaryKey(),
    userId: integer().notNull().references(() => users.id, { onDelete: 'cascade' }),
    tokenHash: text().notNull(),
    createdAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    expiresAt: timestamp({ withTimezone: true, mode: 'date' }).notNull(),
    usedAt: timestamp({ withTimezone: true, mode: 'date' }),
  },
  (t) => [uniqueIndex('password_reset_tokens_hash_uq').on(t.tokenHash)],
);
