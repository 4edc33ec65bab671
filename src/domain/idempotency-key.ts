/** An `Idempotency-Key` header value: 1 to 200 visible ASCII characters (every route that takes one). */
export const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,200}$/;
