ALTER TABLE `crawl_pages` ADD `etag` text;--> statement-breakpoint
ALTER TABLE `crawl_pages` ADD `last_modified` text;--> statement-breakpoint
ALTER TABLE `crawl_pages` ADD `body_hash` text;--> statement-breakpoint
ALTER TABLE `crawl_pages` ADD `body_bytes` integer;--> statement-breakpoint
ALTER TABLE `crawl_pages` ADD `links_found` integer;--> statement-breakpoint
ALTER TABLE `crawl_pages` ADD `excluded_links` integer;--> statement-breakpoint
ALTER TABLE `crawl_pages` ADD `first_link_id` integer;--> statement-breakpoint
ALTER TABLE `crawl_pages` ADD `link_count` integer;--> statement-breakpoint
ALTER TABLE `crawl_pages` ADD `id_hashes` blob;--> statement-breakpoint
ALTER TABLE `crawl_pages` ADD `ids_gap` text;--> statement-breakpoint
ALTER TABLE `crawls` ADD `pages_reused` integer DEFAULT 0 NOT NULL;