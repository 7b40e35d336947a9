CREATE TABLE `crawl_page_ids` (
	`crawl_id` text NOT NULL,
	`url` text NOT NULL,
	`ids` text,
	`complete` integer NOT NULL,
	PRIMARY KEY(`crawl_id`, `url`),
	FOREIGN KEY (`crawl_id`) REFERENCES `crawls`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `link_fragments` (
	`link_id` integer PRIMARY KEY NOT NULL,
	`crawl_id` text NOT NULL,
	`target_id` integer NOT NULL,
	`fragments` text NOT NULL,
	FOREIGN KEY (`crawl_id`) REFERENCES `crawls`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `link_fragments_crawl_idx` ON `link_fragments` (`crawl_id`,`link_id`);--> statement-breakpoint
ALTER TABLE `links` ADD `fragment_error` text;--> statement-breakpoint
ALTER TABLE `links` ADD `fragment_warning` text;