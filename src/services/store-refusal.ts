import type { StoreUnavailableError } from "../core/errors.ts";
import { storeUnavailable, storeWriteFailure } from "../store/write-failure.ts";

/**
 * A write the store refused (full disk, failing disk, lost file) as the error a client is told, a 503 to retry
 * rather than an internal error; anything else as it was thrown. For the dashboard, which sees no store.
 */
export function storeRefusalOf<T>(thrown: T): T | StoreUnavailableError {
  const failure = storeWriteFailure(thrown);
  return failure === null ? thrown : storeUnavailable(failure);
}
