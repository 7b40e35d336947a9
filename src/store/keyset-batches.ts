/**
 * The batches of a keyset-paged query (`… AND id > $afterId ORDER BY id LIMIT size`): `read` is called with 0,
 * then with the last id of each full batch, until a batch comes back short. Memory stays at one batch however
 * many rows there are, and no batch walks the rows before it as an OFFSET would; one await per batch, never per row.
 */
export async function* keysetBatches<Row>(read: (afterId: number) => Promise<Row[]>, size: number, idOf: (row: Row) => number): AsyncGenerator<Row[]> {
  for (let afterId = 0; ; ) {
    const rows = await read(afterId);
    yield rows;
    if (rows.length < size) return;
    afterId = idOf(rows[rows.length - 1]!);
  }
}
