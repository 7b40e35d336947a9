CREATE TABLE `ended_sessions` (
	`nonce` text PRIMARY KEY NOT NULL,
	`expires_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `ended_sessions_expiry_idx` ON `ended_sessions` (`expires_at`);--> statement-breakpoint
CREATE TABLE `rate_buckets` (
	`caller` text PRIMARY KEY NOT NULL,
	`tokens` real NOT NULL,
	`updated_at` integer NOT NULL,
	`allowed` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `rate_buckets_updated_idx` ON `rate_buckets` (`updated_at`);