ALTER TABLE `crawls` ADD `sitemap_urls` integer;--> statement-breakpoint
ALTER TABLE `crawls` ADD `orphan_pages` integer;--> statement-breakpoint
CREATE INDEX `crawl_targets_unlinked_idx` ON `crawl_targets` (`crawl_id`,`id`) WHERE depth = -1;