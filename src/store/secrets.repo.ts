import type { Db } from "./db.ts";

/**
 * Secrets every node of a store must share, by name (the dashboard's session signing key on PostgreSQL: a sign-in
 * on one node holds on the others). The first node to ask writes its value; every node then reads the same one.
 */
export class SecretsRepo {
  constructor(private readonly db: Db) {}

  /**
   * The secret `name`, made with `make` and stored if there is none yet. Nodes asking at once each make a value,
   * one insert wins and all of them return the winner's: the insert does nothing on a conflict, then the row is read.
   */
  async getOrCreate(name: string, make: () => string): Promise<string> {
    await this.db.run("INSERT INTO store_secrets (name, value) VALUES ($name, $value) ON CONFLICT DO NOTHING", { name, value: make() });
    const row = await this.db.get<{ value: string }>("SELECT value FROM store_secrets WHERE name = $name", { name });
    return row!.value;
  }

  /** The secret `name`, or undefined. */
  async get(name: string): Promise<string | undefined> {
    return (await this.db.get<{ value: string }>("SELECT value FROM store_secrets WHERE name = $name", { name }))?.value;
  }

  /** Removes the secret `name` (for the session key: signs everyone out, on every node): whether it existed. */
  async delete(name: string): Promise<boolean> {
    return (await this.db.run("DELETE FROM store_secrets WHERE name = $name", { name })).changes > 0;
  }
}
