import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const GIVEN_REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/**
 * Request ids: the caller's `x-request-id` when it is a sane token, else a random prefix per process
 * and a counter, unique without a random draw per request.
 */
export function createRequestIds(): (req: IncomingMessage) => string {
  const prefix = `req_${randomBytes(6).toString('base64url')}`;
  let counter = 0;
  return (req) => {
    const given = req.headers['x-request-id'];
    return typeof given === 'string' && GIVEN_REQUEST_ID.test(given) ? given : `${prefix}${(counter++).toString(36)}`;
  };
}
