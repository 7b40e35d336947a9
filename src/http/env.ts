import type { UnauthorizedError } from "../core/errors.ts";
import type { Scope } from "../core/scopes.ts";
import type { Principal } from "../services/keys.service.ts";

/** Hono context variables set by the middleware chain and read by routes. */
export interface AppEnv {
  Variables: {
    requestId: string;
    /** The client's address: the peer's, or what a trusted proxy says (http/client-address.ts). */
    clientAddress: string;
    /** The authenticated key, or null when the request carried no usable credentials. */
    principal: Principal | null;
    /** Why credentials were refused, kept until a route that needs them reports it. */
    authError: UnauthorizedError | null;
    /**
     * The store's version token as the request began (api/middleware/store-version-token.ts), which the kept keys
     * and answers are checked against; null when it could not be read, unset when the store has none.
     */
    storeVersion: string | null | undefined;
    /**
     * Set by the response cache on a miss, asked by a route that keeps its answers (`keepAnswer`): the answer another
     * request's run of the route is computing under the same version, or undefined, and then this request's run is
     * the one others wait for.
     */
    shareAnswer: (() => Promise<{ body: Blob; gzip: Blob | null; contentType: string } | undefined> | undefined) | undefined;
    /** Set by a route whose 200 answers the response cache may keep: the scope a key needs to be given one. */
    keepAnswerFor: Scope | undefined;
  };
}
