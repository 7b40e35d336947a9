CREATE TABLE `crawl_warnings` (
	`crawl_id` text NOT NULL,
	`position` integer NOT NULL,
	`cause` text NOT NULL,
	`message` text DEFAULT '' NOT NULL,
	`count` integer NOT NULL,
	`samples` text DEFAULT '[]' NOT NULL,
	PRIMARY KEY(`crawl_id`, `position`),
	FOREIGN KEY (`crawl_id`) REFERENCES `crawls`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
-- BEGIN hand-written (h38-warnings; carry over when renumbering): the backfill must run before drizzle's DROP
-- COLUMN below, which reads nothing. Each warning text of an existing crawl becomes an `other` entry, cut to 300
-- characters like any sample, the first 32 per crawl; the rest are counted in one `omitted` entry.
INSERT INTO `crawl_warnings` (`crawl_id`, `position`, `cause`, `message`, `count`, `samples`)
SELECT c.`id`, j.`key`, 'other', CASE WHEN length(j.`value`) > 300 THEN substr(j.`value`, 1, 299) || '…' ELSE j.`value` END, 1, '[]'
FROM `crawls` c, json_each(c.`warnings`) j
WHERE c.`warnings` <> '[]' AND json_valid(c.`warnings`) AND j.`key` < 32;
--> statement-breakpoint
INSERT INTO `crawl_warnings` (`crawl_id`, `position`, `cause`, `message`, `count`, `samples`)
SELECT `id`, 32, 'omitted', '', json_array_length(`warnings`) - 32, '[]'
FROM `crawls` WHERE `warnings` <> '[]' AND json_valid(`warnings`) AND json_array_length(`warnings`) > 32;
-- END hand-written
--> statement-breakpoint
ALTER TABLE `crawls` DROP COLUMN `warnings`;
