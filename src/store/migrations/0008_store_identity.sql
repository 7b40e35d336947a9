CREATE TABLE `store_identity` (
	`id` integer PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	CONSTRAINT "store_identity_one_row" CHECK("store_identity"."id" = 1)
);
--> statement-breakpoint
-- Hand-written: every store gets its id once, when this migration builds or upgrades it (docs/decisions.md).
INSERT INTO `store_identity` (`id`, `store_id`) VALUES (1, lower(hex(randomblob(16))));
