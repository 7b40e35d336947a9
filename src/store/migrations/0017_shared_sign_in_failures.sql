CREATE TABLE `sign_in_failures` (
	`bucket` text PRIMARY KEY NOT NULL,
	`failures` integer NOT NULL,
	`last_failed_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `sign_in_failures_last_idx` ON `sign_in_failures` (`last_failed_at`);