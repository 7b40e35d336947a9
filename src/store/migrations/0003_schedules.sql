ALTER TABLE `crawls` ADD `trigger` text DEFAULT 'api' NOT NULL;--> statement-breakpoint
ALTER TABLE `crawls` ADD `new_broken_links` integer;--> statement-breakpoint
ALTER TABLE `domains` ADD `schedule_timezone` text;