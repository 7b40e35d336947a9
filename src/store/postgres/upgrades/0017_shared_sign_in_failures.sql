-- 0017_shared_sign_in_failures for a PostgreSQL store made by an earlier linkpatrol.
CREATE UNLOGGED TABLE "sign_in_failures" (
  "bucket" text PRIMARY KEY,
  "failures" bigint NOT NULL,
  "last_failed_at" bigint NOT NULL
);

CREATE INDEX "sign_in_failures_last_idx" ON "sign_in_failures" ("last_failed_at");
