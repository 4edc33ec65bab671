-- Customer groups and price multipliers (issue 33, item 4; src/ports/customer-groups-store.port.ts).
-- A group's prices are the list prices times its multiplier (parts per million; 1000000 is 1x), or
-- times the model's own multiplier where it has one. An account (a user or an organization: both are
-- rows of users) in no group is in the default group, at the list price. Each group carries the
-- version the next change must name; the revision row tells every process polling it that something
-- changed. Changes are written to upstream_audit with the other price settings.
CREATE TABLE customer_groups (
  name text PRIMARY KEY,
  description text,
  multiplier_ppm bigint NOT NULL CHECK (multiplier_ppm > 0),
  models_json text NOT NULL,
  version integer NOT NULL,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  updated_by text NOT NULL
);

CREATE TABLE customer_group_members (
  account_id text PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  group_name text NOT NULL REFERENCES customer_groups (name),
  updated_at bigint NOT NULL,
  updated_by text NOT NULL
);
CREATE INDEX customer_group_members_group_idx ON customer_group_members (group_name);

CREATE TABLE customer_groups_revision (
  id integer PRIMARY KEY CHECK (id = 1),
  revision bigint NOT NULL
);
INSERT INTO customer_groups_revision (id, revision) VALUES (1, 0);
