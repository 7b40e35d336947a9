CREATE TABLE `unchecked_links` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`crawl_id` text NOT NULL,
	`source_url` text NOT NULL,
	`url` text NOT NULL,
	`kind` text NOT NULL,
	`internal` integer NOT NULL,
	`link_text` text NOT NULL,
	`status_code` integer NOT NULL,
	`final_url` text,
	`error` text,
	`warning` text,
	`cause` text NOT NULL,
	`broken_since` text NOT NULL,
	FOREIGN KEY (`crawl_id`) REFERENCES `crawls`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `unchecked_links_crawl_idx` ON `unchecked_links` (`crawl_id`,`id`);--> statement-breakpoint
CREATE INDEX `unchecked_links_url_idx` ON `unchecked_links` (`crawl_id`,`url`);--> statement-breakpoint
ALTER TABLE `broken_links` ADD `broken_since` text;--> statement-breakpoint
ALTER TABLE `crawl_pages` ADD `cut` integer DEFAULT false NOT NULL;--> statement-breakpoint
-- Hand-written backfill: broken links recorded before broken_since existed are broken at least since their own crawl began.
UPDATE `broken_links` SET `broken_since` = (SELECT COALESCE(`started_at`, `created_at`) FROM `crawls` WHERE `crawls`.`id` = `broken_links`.`crawl_id`);
