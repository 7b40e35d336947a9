CREATE TABLE `broken_links` (
	`link_id` integer PRIMARY KEY NOT NULL,
	`crawl_id` text NOT NULL,
	`target_id` integer NOT NULL,
	FOREIGN KEY (`crawl_id`) REFERENCES `crawls`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `broken_links_crawl_idx` ON `broken_links` (`crawl_id`,`link_id`);--> statement-breakpoint
CREATE INDEX `broken_links_target_idx` ON `broken_links` (`target_id`);--> statement-breakpoint
CREATE TABLE `crawl_status_counts` (
	`crawl_id` text NOT NULL,
	`status_code` integer NOT NULL,
	`is_broken` integer NOT NULL,
	`links` integer NOT NULL,
	PRIMARY KEY(`crawl_id`, `status_code`, `is_broken`),
	FOREIGN KEY (`crawl_id`) REFERENCES `crawls`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `crawl_waiting` (
	`target_id` integer PRIMARY KEY NOT NULL,
	`links` integer NOT NULL,
	`last_link_id` integer NOT NULL,
	FOREIGN KEY (`target_id`) REFERENCES `crawl_targets`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
-- Filled from the links as they stand, while the old table's index on target_id still answers by target.
INSERT INTO `broken_links` (`link_id`, `crawl_id`, `target_id`)
	SELECT l.`id`, l.`crawl_id`, l.`target_id` FROM `crawl_targets` t JOIN `links` l ON l.`target_id` = t.`id`
	WHERE t.`state` = 'done' AND t.`is_broken` = 1;--> statement-breakpoint
INSERT INTO `crawl_status_counts` (`crawl_id`, `status_code`, `is_broken`, `links`)
	SELECT t.`crawl_id`, t.`status_code`, t.`is_broken`, COUNT(*) FROM `crawl_targets` t JOIN `links` l ON l.`target_id` = t.`id`
	WHERE t.`state` = 'done' GROUP BY t.`crawl_id`, t.`status_code`, t.`is_broken`;--> statement-breakpoint
-- drizzle-kit's foreign_keys switches are no-ops inside the migration's transaction; no table references links.
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_links` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`crawl_id` text NOT NULL,
	`source_url` text NOT NULL,
	`target_id` integer NOT NULL,
	`link_text` text NOT NULL,
	`kind` text NOT NULL,
	`waiting_prev_id` integer,
	FOREIGN KEY (`crawl_id`) REFERENCES `crawls`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
-- Links to a still-queued target are chained, newest to oldest, as the crawler chains them.
INSERT INTO `__new_links`("id", "crawl_id", "source_url", "target_id", "link_text", "kind", "waiting_prev_id")
	SELECT l."id", l."crawl_id", l."source_url", l."target_id", l."link_text", l."kind",
		CASE WHEN t.`state` = 'queued' THEN (SELECT MAX(o.`id`) FROM `links` o WHERE o.`target_id` = l.`target_id` AND o.`id` < l.`id`) END
	FROM `links` l LEFT JOIN `crawl_targets` t ON t.`id` = l.`target_id`;--> statement-breakpoint
-- Link ids are never reused, even those of links deleted at the end of the old table.
UPDATE `sqlite_sequence` SET `seq` = (SELECT `seq` FROM `sqlite_sequence` WHERE `name` = 'links')
	WHERE `name` = '__new_links' AND `seq` < (SELECT `seq` FROM `sqlite_sequence` WHERE `name` = 'links');--> statement-breakpoint
DROP TABLE `links`;--> statement-breakpoint
ALTER TABLE `__new_links` RENAME TO `links`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE INDEX `links_crawl_order_idx` ON `links` (`crawl_id`,`id`);
--> statement-breakpoint
CREATE INDEX `webhook_deliveries_crawl_idx` ON `webhook_deliveries` (json_extract(`payload`, '$.data.crawl_id'));--> statement-breakpoint
CREATE INDEX `webhook_deliveries_created_idx` ON `webhook_deliveries` (`created_at`);
