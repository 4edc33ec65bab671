-- A member's monthly spend cap inside an organization (issue 33, items 1 and 3): every movement of an
-- organization key's spend also moves its member's row of the month (the key's calendar month, as the
-- key's own 'month' row), and a guarded movement above the member's cap is refused in the same
-- transaction (src/adapters/db/ledger/member-spend-rule.ts).
ALTER TABLE organization_members ADD COLUMN monthly_cap_micro INTEGER CHECK (monthly_cap_micro IS NULL OR monthly_cap_micro >= 0);

CREATE TABLE organization_member_spend (
  organization_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  spend_month TEXT NOT NULL,
  spent_micro INTEGER NOT NULL DEFAULT 0,
  held_micro INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (organization_id, user_id, spend_month)
) STRICT;
