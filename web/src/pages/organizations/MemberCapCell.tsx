import { type FormEvent, useState } from 'react';
import { errorMessage, requestData } from '../../api/client.ts';
import type { OrganizationMember } from '../../api/index.ts';
import { dollarsToMicro, formatUsd, microToDollars } from '../../format.ts';

/**
 * What a member spent this month against their monthly cap; an owner or admin changes the cap (empty:
 * no cap). Typed in dollars, sent as micro-USD.
 */
export function MemberCapCell(props: { member: OrganizationMember; path: string; canChange: boolean; onChanged: () => void }) {
  const { member } = props;
  const cap = member.monthlyCapMicroUsd;
  const [text, setText] = useState(cap === null ? '' : microToDollars(String(cap)));
  const [error, setError] = useState<string | undefined>();
  const inputId = `cap-${member.userId}`;

  const save = async (event: FormEvent) => {
    event.preventDefault();
    const micro = text.trim() === '' ? null : dollarsToMicro(text);
    if (micro === undefined) {
      setError('Dollars with at most two decimals, e.g. 25.00; empty for no cap.');
      return;
    }
    setError(undefined);
    try {
      await requestData('PATCH', props.path, { body: { monthlyCapMicroUsd: micro === null ? null : Number(micro) } });
      props.onChanged();
    } catch (e) {
      setError(errorMessage(e));
    }
  };

  const spent = `${formatUsd(member.spentThisMonthMicroUsd)} spent this month`;
  if (!props.canChange) return <>{cap === null ? `${spent}, no cap` : `${spent} of ${formatUsd(cap)}`}</>;
  return (
    <form className="inline-form" onSubmit={save}>
      <span className="small">{spent}</span>
      <label htmlFor={inputId} className="visually-hidden">
        Monthly cap of {member.email} in dollars (empty: no cap)
      </label>
      <input id={inputId} className="fit-width" inputMode="decimal" size={8} placeholder="No cap" value={text} onChange={(e) => setText(e.target.value)} aria-invalid={error ? true : undefined} />
      <button type="submit" className="button button-small" aria-label={`Save the monthly cap of ${member.email}`}>
        Save cap
      </button>
      {error ? (
        <span className="notice notice-error" role="alert">
          {error}
        </span>
      ) : null}
    </form>
  );
}
