import type { Db } from "./db.ts";

/** The store's clock (dialect `nowMs`): the time every node of one store agrees on. */
export async function storeNow(db: Db): Promise<Date> {
  const row = await db.get<{ ms: number }>(`SELECT ${db.dialect.nowMs} AS ms`);
  return new Date(Number(row!.ms));
}
