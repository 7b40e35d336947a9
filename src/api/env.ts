import type { UnauthorizedError } from "../core/errors.ts";
import type { Principal } from "../services/keys.service.ts";
import type { ResponseCache } from "./middleware/response-cache/response-cache.ts";

/** Hono context variables set by the middleware chain and read by routes. */
export interface AppEnv {
  Variables: {
    requestId: string;
    /** The authenticated key, or null when the request carried no usable credentials. */
    principal: Principal | null;
    /** Why credentials were refused, kept until a route that needs them reports it. */
    authError: UnauthorizedError | null;
    /** Answers kept for GET routes (absent in apps built without one). */
    responses: ResponseCache | undefined;
  };
}
