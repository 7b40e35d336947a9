ALTER TABLE `crawl_page_ids` ADD `id_hashes` blob;--> statement-breakpoint
ALTER TABLE `crawl_page_ids` ADD `gap` text;--> statement-breakpoint
ALTER TABLE `crawl_page_ids` DROP COLUMN `ids`;--> statement-breakpoint
ALTER TABLE `crawl_page_ids` DROP COLUMN `complete`;--> statement-breakpoint
ALTER TABLE `link_fragments` ADD `gap` text;--> statement-breakpoint
ALTER TABLE `links` ADD `fragment` text DEFAULT '' NOT NULL;--> statement-breakpoint
-- Hand-written: ids stored as text by an older release have no hashes; a crawl resumed across the upgrade fetches the pages it still needs for their ids again.
DELETE FROM `crawl_page_ids`;