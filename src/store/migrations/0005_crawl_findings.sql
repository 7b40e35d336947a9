ALTER TABLE `crawls` ADD `failure` text;--> statement-breakpoint
ALTER TABLE `crawls` ADD `warnings` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `crawls` ADD `pages_cut` integer DEFAULT 0 NOT NULL;