ALTER TABLE `crawls` ADD `excluded_links` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `domains` ADD `ignore_rules` text;