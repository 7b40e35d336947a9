CREATE TABLE `crawl_pages` (
	`crawl_id` text NOT NULL,
	`url` text NOT NULL,
	PRIMARY KEY(`crawl_id`, `url`),
	FOREIGN KEY (`crawl_id`) REFERENCES `crawls`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `crawl_targets` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`crawl_id` text NOT NULL,
	`url` text NOT NULL,
	`state` text DEFAULT 'queued' NOT NULL,
	`internal` integer NOT NULL,
	`as_page` integer DEFAULT false NOT NULL,
	`depth` integer NOT NULL,
	`status_code` integer,
	`is_broken` integer,
	`error` text,
	`warning` text,
	`final_url` text,
	FOREIGN KEY (`crawl_id`) REFERENCES `crawls`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `crawl_targets_url_unique` ON `crawl_targets` (`crawl_id`,`url`);--> statement-breakpoint
CREATE INDEX `crawl_targets_state_idx` ON `crawl_targets` (`crawl_id`,`state`,`id`);--> statement-breakpoint
CREATE TABLE `crawls` (
	`id` text PRIMARY KEY NOT NULL,
	`domain_id` text NOT NULL,
	`status` text NOT NULL,
	`options` text NOT NULL,
	`error` text,
	`truncated` integer DEFAULT false NOT NULL,
	`pages_crawled` integer DEFAULT 0 NOT NULL,
	`total_links` integer DEFAULT 0 NOT NULL,
	`broken_links` integer DEFAULT 0 NOT NULL,
	`skipped_links` integer DEFAULT 0 NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`started_at` text,
	`completed_at` text,
	FOREIGN KEY (`domain_id`) REFERENCES `domains`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `crawls_created_at_idx` ON `crawls` (`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `crawls_domain_idx` ON `crawls` (`domain_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `crawls_status_idx` ON `crawls` (`status`,`created_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `crawls_one_active_per_domain` ON `crawls` (`domain_id`) WHERE status IN ('pending', 'running');--> statement-breakpoint
CREATE TABLE `links` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`crawl_id` text NOT NULL,
	`source_url` text NOT NULL,
	`target_id` integer NOT NULL,
	`link_text` text NOT NULL,
	`kind` text NOT NULL,
	FOREIGN KEY (`crawl_id`) REFERENCES `crawls`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`target_id`) REFERENCES `crawl_targets`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `links_target_idx` ON `links` (`target_id`);--> statement-breakpoint
CREATE INDEX `links_crawl_order_idx` ON `links` (`crawl_id`,`id`);