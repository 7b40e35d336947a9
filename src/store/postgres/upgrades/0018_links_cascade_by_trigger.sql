-- 0018_links_cascade_by_trigger: PostgreSQL only (the SQLite store keeps its key). A link row no longer carries
-- a foreign key to its crawl: PostgreSQL checked it with a query a row, the largest cost of writing a crawl's
-- links. Deleting a crawl deletes its links as the key's ON DELETE CASCADE did, by this trigger; a link is only
-- written by its crawl's job, whose transaction holds the crawl's row FOR SHARE (store/crawl-fence.ts), so no
-- link is written for a crawl being deleted.
ALTER TABLE "links" DROP CONSTRAINT "links_crawl_id_crawls_id_fk";

CREATE FUNCTION "delete_crawl_links"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "links" WHERE "crawl_id" = OLD."id";
  RETURN NULL;
END
$$;

CREATE TRIGGER "crawls_delete_links" AFTER DELETE ON "crawls" FOR EACH ROW EXECUTE FUNCTION "delete_crawl_links"();
