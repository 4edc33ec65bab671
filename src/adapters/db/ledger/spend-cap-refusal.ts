import { AppError } from '../../../domain/errors.ts';

/**
 * The refusal of a movement above a key's spend cap, or above its member's monthly cap inside an
 * organization: both are `key_spend_cap_reached` (402), the cap that binds the key, so every caller
 * that handles a key's cap (the agent's tool results, storage renewals) handles the member's alike.
 */
export function spendCapReached(which: 'key_cap_reached' | 'member_cap_reached'): AppError {
  return which === 'member_cap_reached'
    ? new AppError('key_spend_cap_reached', "your monthly spend cap in this organization is reached: an owner or admin of the organization can raise it")
    : new AppError('key_spend_cap_reached', 'this API key has reached its spend cap');
}
