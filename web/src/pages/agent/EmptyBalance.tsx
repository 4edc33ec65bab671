import { requestData } from '../../api/client.ts';
import { formatMicroUsd } from '../../format.ts';
import { Link } from '../../router.tsx';

/** The account's money as GET /api/v1/billing gives it (micro-USD strings). */
interface Money {
  balanceMicroUsd: string;
  availableMicroUsd: string;
}

/** The balance when nothing can be spent, else undefined. */
export type EmptyBalance = Money | undefined;

/**
 * Read at each send, not cached: funds added in another tab count at once. A message from an empty
 * balance is refused here, before anything is created, as the playground refuses a request it
 * cannot pay; a failed read lets the message go (the server still refuses it with a 402).
 */
export async function emptyBalance(): Promise<EmptyBalance> {
  try {
    const money = await requestData<Money>('GET', '/api/v1/billing');
    return BigInt(money.availableMicroUsd) <= 0n ? money : undefined;
  } catch {
    return undefined;
  }
}

/** The refusal, with the one way out; the draft stays in the composer. */
export function EmptyBalanceNotice(props: { money: Money }) {
  const { balanceMicroUsd, availableMicroUsd } = props.money;
  const held = BigInt(balanceMicroUsd) > BigInt(availableMicroUsd);
  return (
    <div className="notice notice-error" role="alert" data-testid="agent-empty-balance">
      <strong>The message was not sent: </strong>
      your balance is {formatMicroUsd(held ? availableMicroUsd : balanceMicroUsd)}
      {held ? ` to spend (${formatMicroUsd(balanceMicroUsd)}, the rest held by running requests)` : ''}. <Link to="/billing">Add funds</Link>, then send it
      again.
    </div>
  );
}
