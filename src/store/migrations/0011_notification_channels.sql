CREATE TABLE `channel_domains` (
	`channel_id` text NOT NULL,
	`domain_id` text NOT NULL,
	PRIMARY KEY(`channel_id`, `domain_id`),
	FOREIGN KEY (`channel_id`) REFERENCES `channels`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`domain_id`) REFERENCES `domains`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `channel_domains_domain_idx` ON `channel_domains` (`domain_id`);--> statement-breakpoint
CREATE TABLE `channels` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`kind` text NOT NULL,
	`settings` text NOT NULL,
	`secrets` text NOT NULL,
	`notify_when` text DEFAULT 'changed' NOT NULL,
	`all_domains` integer DEFAULT true NOT NULL,
	`active` integer DEFAULT true NOT NULL,
	`disabled_reason` text,
	`failing_since` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL
);
--> statement-breakpoint
CREATE INDEX `channels_created_at_idx` ON `channels` (`created_at`,`id`);--> statement-breakpoint
-- Hand-written from here (drizzle-kit's rebuild lost data): webhook_deliveries is rebuilt so webhook_id may be null
-- (a channel's delivery has channel_id instead). drizzle-kit's foreign_keys switches are no-ops inside the
-- migration's transaction, so dropping the old table would delete every webhook_attempts row through its
-- ON DELETE CASCADE: the attempts are rebuilt first, onto the new table, and the old attempts table dropped
-- before the old deliveries table.
CREATE TABLE `__new_webhook_deliveries` (
	`id` text PRIMARY KEY NOT NULL,
	`webhook_id` text,
	`channel_id` text,
	`event` text NOT NULL,
	`payload` text NOT NULL,
	`state` text DEFAULT 'pending' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` text,
	`last_error` text,
	`last_status_code` integer,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`delivered_at` text,
	FOREIGN KEY (`webhook_id`) REFERENCES `webhooks`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`channel_id`) REFERENCES `channels`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "webhook_deliveries_one_target" CHECK(("webhook_id" IS NULL) <> ("channel_id" IS NULL))
);
--> statement-breakpoint
INSERT INTO `__new_webhook_deliveries`("id", "webhook_id", "channel_id", "event", "payload", "state", "attempts", "next_attempt_at", "last_error", "last_status_code", "created_at", "delivered_at")
	SELECT "id", "webhook_id", NULL, "event", "payload", "state", "attempts", "next_attempt_at", "last_error", "last_status_code", "created_at", "delivered_at" FROM `webhook_deliveries`;--> statement-breakpoint
CREATE TABLE `__new_webhook_attempts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`delivery_id` text NOT NULL,
	`attempt` integer NOT NULL,
	`status_code` integer,
	`error` text,
	`duration_ms` integer NOT NULL,
	`response_body` text NOT NULL,
	`attempted_at` text NOT NULL,
	FOREIGN KEY (`delivery_id`) REFERENCES `__new_webhook_deliveries`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
INSERT INTO `__new_webhook_attempts`("id", "delivery_id", "attempt", "status_code", "error", "duration_ms", "response_body", "attempted_at")
	SELECT "id", "delivery_id", "attempt", "status_code", "error", "duration_ms", "response_body", "attempted_at" FROM `webhook_attempts`;--> statement-breakpoint
-- Attempt ids are never reused, even those of attempts deleted at the end of the old table.
UPDATE `sqlite_sequence` SET `seq` = (SELECT `seq` FROM `sqlite_sequence` WHERE `name` = 'webhook_attempts')
	WHERE `name` = '__new_webhook_attempts' AND `seq` < (SELECT `seq` FROM `sqlite_sequence` WHERE `name` = 'webhook_attempts');--> statement-breakpoint
DROP TABLE `webhook_attempts`;--> statement-breakpoint
DROP TABLE `webhook_deliveries`;--> statement-breakpoint
-- Renaming the deliveries table rewrites the attempts' foreign key to its new name (SQLite >= 3.26).
ALTER TABLE `__new_webhook_deliveries` RENAME TO `webhook_deliveries`;--> statement-breakpoint
ALTER TABLE `__new_webhook_attempts` RENAME TO `webhook_attempts`;--> statement-breakpoint
CREATE INDEX `webhook_attempts_delivery_idx` ON `webhook_attempts` (`delivery_id`,`attempt`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_due_idx` ON `webhook_deliveries` (`state`,`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_webhook_idx` ON `webhook_deliveries` (`webhook_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_channel_idx` ON `webhook_deliveries` (`channel_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_crawl_idx` ON `webhook_deliveries` (json_extract(`payload`, '$.data.crawl_id'));--> statement-breakpoint
CREATE INDEX `webhook_deliveries_created_idx` ON `webhook_deliveries` (`created_at`);
