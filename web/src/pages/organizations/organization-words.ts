/** Roles in people's words, with what each may do. */
export const ROLE_WORDS: Record<string, string> = { owner: 'Owner', admin: 'Admin', member: 'Member' };

export const ROLE_HINTS: Record<string, string> = {
  owner: 'Adds money, invites and removes people, everything else',
  admin: "Manages everyone's keys and reads the whole ledger",
  member: 'Uses the balance through their own keys',
};
