CREATE TABLE `cluster_nodes` (
	`name` text PRIMARY KEY NOT NULL,
	`instance` text NOT NULL,
	`version` text NOT NULL,
	`started_at` text NOT NULL,
	`heartbeat_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `schedule_runs` (
	`domain_id` text NOT NULL,
	`due_at` text NOT NULL,
	`node` text NOT NULL,
	`fired_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	PRIMARY KEY(`domain_id`, `due_at`),
	FOREIGN KEY (`domain_id`) REFERENCES `domains`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `schedule_runs_due_idx` ON `schedule_runs` (`due_at`);--> statement-breakpoint
CREATE TABLE `store_secrets` (
	`name` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL
);
--> statement-breakpoint
CREATE TABLE `work_leases` (
	`kind` text NOT NULL,
	`key` text NOT NULL,
	`holder` text NOT NULL,
	`expires_at` text NOT NULL,
	`fence` integer NOT NULL,
	PRIMARY KEY(`kind`, `key`)
);
--> statement-breakpoint
CREATE INDEX `work_leases_expiry_idx` ON `work_leases` (`kind`,`expires_at`);--> statement-breakpoint
CREATE INDEX `work_leases_holder_idx` ON `work_leases` (`holder`);