import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { budgetCrossings, MAX_ALERT_AMOUNT_MICRO, parseBudgetAlertChoices, spendOf } from '../../../src/domain/accounts/budget-alert-rules.ts';
import { AppError } from '../../../src/domain/errors.ts';

const checkUrl = (value: unknown) => String(value);
const choices = (body: unknown, organization = false) => parseBudgetAlertChoices(body, { organization, checkUrl });
const refused = (body: unknown, field: string, organization = false) =>
  assert.throws(
    () => choices(body, organization),
    (e: unknown) => e instanceof AppError && e.code === 'invalid_input' && e.param === field,
    JSON.stringify(body),
  );

describe('budget alert rules', () => {
  it('reads an owner’s choices: percentages sorted and unique, email on unless turned off', () => {
    assert.deepEqual(choices({ monthlyBudgetMicroUsd: 100_000_000, spendThresholdsPercent: [100, 50, 80, 50] }), {
      monthlyBudgetMicro: 100_000_000, spendPercents: [50, 80, 100], balanceBelowMicro: null, memberCapPercents: [], webhookUrl: null, email: true,
    });
    assert.equal(choices({ balanceBelowMicroUsd: 5, email: false, webhookUrl: '' }).email, false);
  });

  it('refuses what would never fire or cannot be meant, naming the field', () => {
    refused({ spendThresholdsPercent: [50] }, 'monthlyBudgetMicroUsd');
    refused({ monthlyBudgetMicroUsd: 100 }, 'spendThresholdsPercent');
    refused({ monthlyBudgetMicroUsd: 100, spendThresholdsPercent: [0] }, 'spendThresholdsPercent');
    refused({ monthlyBudgetMicroUsd: 100, spendThresholdsPercent: [50.5] }, 'spendThresholdsPercent');
    refused({ monthlyBudgetMicroUsd: 100, spendThresholdsPercent: Array.from({ length: 11 }, (_, i) => i + 1) }, 'spendThresholdsPercent');
    refused({ monthlyBudgetMicroUsd: MAX_ALERT_AMOUNT_MICRO + 1, spendThresholdsPercent: [50] }, 'monthlyBudgetMicroUsd');
    refused({ balanceBelowMicroUsd: -1 }, 'balanceBelowMicroUsd');
    refused({ memberCapThresholdsPercent: [50] }, 'memberCapThresholdsPercent');
    refused({ email: 'yes' }, 'email');
    refused({ budget: 1 }, 'budget');
    assert.deepEqual(choices({ memberCapThresholdsPercent: [80] }, true).memberCapPercents, [80]);
  });

  it('counts every movement out as spend, a refund back, and no credit', () => {
    assert.equal(spendOf('generation_debit', -250), 250);
    assert.equal(spendOf('generation_refund', 250), -250);
    assert.equal(spendOf('chat_charge', -7), 7);
    for (const kind of ['credit', 'initial_credit', 'topup_credit', 'redeem_credit']) assert.equal(spendOf(kind, 1_000), 0);
  });

  it('crosses a percentage at its exact micro-USD, notifies only the highest crossed together, and keys each by what it measures', () => {
    const c = choices({ monthlyBudgetMicroUsd: 3, spendThresholdsPercent: [50, 100] });
    assert.deepEqual(budgetCrossings(c, { spentMicro: 1, balanceMicro: 0, members: [] }), [], '1 is under 50 % of 3 (1.5, so 2)');
    assert.deepEqual(
      budgetCrossings(c, { spentMicro: 3, balanceMicro: 0, members: [] }).map((x) => [x.alertKey, x.thresholdMicro, x.notified]),
      [['spend:50:3', 2, false], ['spend:100:3', 3, true]],
    );
    const org = choices({ balanceBelowMicroUsd: 10, memberCapThresholdsPercent: [80] }, true);
    const crossed = budgetCrossings(org, { spentMicro: 0, balanceMicro: 9, members: [{ userId: 'usr_a', capMicro: 100, spentMicro: 80 }, { userId: 'usr_b', capMicro: 100, spentMicro: 79 }] });
    assert.deepEqual(crossed.map((x) => [x.kind, x.alertKey, x.memberId]), [['balance_below', 'balance_below:10', null], ['member_cap', 'member_cap:80:usr_a:100', 'usr_a']]);
    assert.deepEqual(budgetCrossings(org, { spentMicro: 0, balanceMicro: 10, members: [] }), [], 'at the line is not below it');
  });

  it('stays exact at the largest budget', () => {
    const c = choices({ monthlyBudgetMicroUsd: MAX_ALERT_AMOUNT_MICRO, spendThresholdsPercent: [1000] });
    assert.equal(budgetCrossings(c, { spentMicro: MAX_ALERT_AMOUNT_MICRO * 10, balanceMicro: 0, members: [] })[0]?.thresholdMicro, MAX_ALERT_AMOUNT_MICRO * 10);
  });
});
