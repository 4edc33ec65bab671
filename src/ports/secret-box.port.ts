/**
 * Seals the upstream keys an operator adds live (issue 32, item 1) so that the store holds them only
 * encrypted, with a key from the environment (SWITCHBOARD_SECRET_KEY) or, in the embedded mode, from a
 * file in the data directory made on first start. A sealed value names the key it was sealed with, so
 * that opening it with another key fails clearly instead of yielding garbage.
 */
export interface SecretBox {
  /** Seals a secret; the answer is printable text, different on every call for the same secret. */
  seal(secret: string): string;
  /** Opens what `seal` made with the same key; throws SecretBoxError on any other input or key. */
  open(sealed: string): string;
}

export class SecretBoxError extends Error {
  override readonly name = 'SecretBoxError';
}
